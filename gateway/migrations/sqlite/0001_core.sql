-- Requestors: the partners allowed to call the gateway (POS RequestorID Type 22 / 88).
CREATE TABLE requestor (
    id            TEXT PRIMARY KEY,          -- RequestorID@ID of both POS Sources
    id_context    TEXT NOT NULL,             -- the distributor context (Type 22 ID_Context)
    name          TEXT NOT NULL,
    password_hash TEXT NOT NULL,             -- argon2id PHC string; the password is never stored
    active        INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    created_at    TEXT NOT NULL              -- UTC, YYYY-MM-DDThh:mm:ssZ
) STRICT;
