//! The fetch-time guard (in progress).
