//! Pure statistics, no I/O. Every function names the paper and equation it implements.
