-- A requestor's revision: moved on by every change of the requestor (the console, the CLI, an
-- import). A console form carries the revision it showed; a change made on a form whose
-- requestor has changed since is refused (409) by comparing it in the change's SQL.
ALTER TABLE requestor ADD COLUMN revision INTEGER NOT NULL DEFAULT 1;
