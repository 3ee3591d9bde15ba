-- Who set each supply value last (issue #31, docs/hotels/calendar.md): the requestor id of the
-- channel manager whose notification set it, or `operator:NAME` / `cli:USER` for an edit in the
-- extranet's calendar or the command line. Next to the value's stamp, written with it. Rows
-- written before this migration get the hotel's supplier (NULL where the hotel has none: shown
-- as "channel manager").
ALTER TABLE supply_rooms ADD COLUMN source TEXT;
ALTER TABLE supply_restriction ADD COLUMN source TEXT;
ALTER TABLE supply_rate ADD COLUMN source TEXT;
UPDATE supply_rooms SET source = (SELECT requestor_id FROM supplier_hotel s WHERE s.hotel_code = supply_rooms.hotel_code);
UPDATE supply_restriction SET source = (SELECT requestor_id FROM supplier_hotel s WHERE s.hotel_code = supply_restriction.hotel_code);
UPDATE supply_rate SET source = (SELECT requestor_id FROM supplier_hotel s WHERE s.hotel_code = supply_rate.hotel_code);
