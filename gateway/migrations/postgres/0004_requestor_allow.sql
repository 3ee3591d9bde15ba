-- Per-requestor IP allow-lists (see SQLite's 0007): a CIDR per row; none means any address.
CREATE TABLE requestor_allow (
    requestor_id TEXT NOT NULL REFERENCES requestor(id) ON DELETE CASCADE,
    network      TEXT NOT NULL CHECK (length(network) BETWEEN 2 AND 64),
    PRIMARY KEY (requestor_id, network)
);
