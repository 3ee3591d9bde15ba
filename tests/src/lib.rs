//! Workspace-level tests live in `tests/tests/`.
