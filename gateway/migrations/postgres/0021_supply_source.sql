-- Who set each supply value last: the same columns as SQLite's 0024 (whose comments describe
-- them).
ALTER TABLE supply_rooms ADD COLUMN source TEXT;
ALTER TABLE supply_restriction ADD COLUMN source TEXT;
ALTER TABLE supply_rate ADD COLUMN source TEXT;
UPDATE supply_rooms SET source = (SELECT requestor_id FROM supplier_hotel s WHERE s.hotel_code = supply_rooms.hotel_code);
UPDATE supply_restriction SET source = (SELECT requestor_id FROM supplier_hotel s WHERE s.hotel_code = supply_restriction.hotel_code);
UPDATE supply_rate SET source = (SELECT requestor_id FROM supplier_hotel s WHERE s.hotel_code = supply_rate.hotel_code);
