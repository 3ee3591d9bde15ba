-- The dialect a requestor's answers are written in (`ota_messages::Dialect` by name: `service`,
-- the default, or `ota2016b`). Set by import (`dialect`) and by `ota-gateway requestor add /
-- set --dialect`; a name the gateway does not know is refused when requestors are loaded.
ALTER TABLE requestor ADD COLUMN dialect TEXT NOT NULL DEFAULT 'service' CHECK (length(dialect) BETWEEN 1 AND 32);
