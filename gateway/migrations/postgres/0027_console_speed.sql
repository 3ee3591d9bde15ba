-- The console's speed (issue 30, docs/console/speed.md).
--
-- The hotel extranet's home counts, per hotel of a supplier, the bookings with events the
-- supplier has not acknowledged (`bookings::repo::hotel_counts`). Those events are few (the
-- delivered ones are not in this index): the count reads the supplier's range of this index
-- alone, where it read every hotel event once per hotel (SQLite chose the unique key's
-- `booking_kind`; PostgreSQL `outbox_event_by_supplier` and the table).
CREATE INDEX outbox_event_unacknowledged ON outbox_event (supplier_id, hotel_code, booking_ref)
    WHERE booking_kind = 'hotel' AND state <> 'delivered';
