//! Golden-file UI tests shared by both languages: runs a command on each test source, compares output with `.stderr`/`.stdout` files beside it, and checks inline code annotations.
