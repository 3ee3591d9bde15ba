-- The operator console (see docs/operators/console.md): the people who run the gateway, their
-- browser sessions (shared by every gateway on the database), and the audit trail of every
-- change made through the console or the command line.
--
-- An operator: `ota-gateway operator add NAME --role admin|viewer`; only the argon2id hash of
-- the password is kept.
CREATE TABLE operator (
    name TEXT PRIMARY KEY,
    role TEXT NOT NULL CHECK (role IN ('admin', 'viewer')),
    password_hash TEXT NOT NULL,
    active INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL                -- UTC, YYYY-MM-DDThh:mm:ssZ
);
-- A console session: the cookie holds a random id, this table only its BLAKE2b hash (a copy of
-- the table opens no session). Deleted at logout, when the operator is disabled or changes
-- password, and when it is found past its idle or absolute time-out.
CREATE TABLE console_session (
    id_hash TEXT PRIMARY KEY,
    operator TEXT NOT NULL,
    created_at TEXT NOT NULL,               -- UTC: the absolute time-out counts from here
    seen_at TEXT NOT NULL,                  -- UTC: the idle time-out counts from here
    address TEXT                            -- the client's address at login
);
CREATE INDEX console_session_by_operator ON console_session (operator);
-- The audit trail: who changed what, when, from where; written in the transaction of the
-- change. Never a password.
CREATE TABLE audit_entry (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,                       -- UTC
    actor TEXT NOT NULL,                    -- an operator's name, or cli:<OS user>
    action TEXT NOT NULL,                   -- requestor.set_limits, operator.disable, ...
    target TEXT NOT NULL,                   -- what was changed (a requestor's id, an operator's name, ...)
    old_value TEXT,
    new_value TEXT,
    address TEXT                            -- the operator's client address (none from the CLI)
);
CREATE INDEX audit_entry_by_at ON audit_entry (at);
CREATE INDEX audit_entry_by_actor ON audit_entry (actor, at);
