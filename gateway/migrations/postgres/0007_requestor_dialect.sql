-- The dialect a requestor's answers are written in (see SQLite's 0010).
ALTER TABLE requestor ADD COLUMN dialect TEXT NOT NULL DEFAULT 'service' CHECK (length(dialect) BETWEEN 1 AND 32);
