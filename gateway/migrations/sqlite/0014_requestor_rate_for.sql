-- A requestor's rates per operation (`ota-gateway requestor set --rate-for OPERATION=N`), on top
-- of its overall rate: `operation=N` pairs separated by `;`, the operation by its path without
-- the slash (`hotelavailability=5;activitysearch=10`); empty: none. Checked when requestors are
-- loaded (an operation the gateway does not know is a data error).
ALTER TABLE requestor ADD COLUMN rate_for TEXT NOT NULL DEFAULT '';
