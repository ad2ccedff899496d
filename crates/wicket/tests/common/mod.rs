//! Test helpers shared by several test binaries (each uses a part, hence `dead_code`).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)] // test set-up

pub mod pty;
