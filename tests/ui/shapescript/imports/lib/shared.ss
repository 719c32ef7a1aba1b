# Found through `-I lib` by ../search-path.ss.
dim Shared = 64
