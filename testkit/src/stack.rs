//! Running a test body on a small stack, as a server's worker thread (or Python's main
//! thread) gives a library: what recurses on input depth overflows here first.

/// Runs `f` on a thread with a 2 MiB stack; a stack overflow aborts the test binary.
pub fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("thread")
        .join()
        .expect("no panic")
}
