// ThreadSanitizer's annotation calls, for the lock type (HearthLock's HearthMutex) to tell
// TSan where a critical section begins and ends. Declared weak: in a build without
// `-sanitize=thread` nothing defines them, the linker leaves their addresses null and each
// call below is a null check (no call); in a TSan build the runtime linked into the binary
// defines them. No compile-time switch is needed, so `swift test --sanitize=thread` as
// anyone types it is checkable. (Clang's `__has_feature(thread_sanitizer)` cannot be used:
// Swift's importer compiles this header without `-fsanitize=thread`.)
//
// The interface is compiler-rt's (sanitizer/tsan_interface.h): `__tsan_acquire(addr)` makes
// everything `__tsan_release(addr)` was called after, on any thread, happen before what
// follows it.
#ifndef CHEARTH_SANITIZERS_H
#define CHEARTH_SANITIZERS_H

#ifdef __linux__
extern void __tsan_acquire(void *addr) __attribute__((weak));
extern void __tsan_release(void *addr) __attribute__((weak));

/// Whether this process runs with ThreadSanitizer's runtime.
static inline int hearth_tsan_present(void) { return __tsan_acquire != 0; }

static inline void hearth_tsan_acquire(void *addr) {
    if (__tsan_acquire) __tsan_acquire(addr);
}

static inline void hearth_tsan_release(void *addr) {
    if (__tsan_release) __tsan_release(addr);
}
#else
// Darwin's linker refuses a weak reference nothing defines, and there `Mutex` is an
// os_unfair_lock, which TSan follows: no annotations needed.
static inline int hearth_tsan_present(void) { return 0; }
static inline void hearth_tsan_acquire(void *addr) { (void)addr; }
static inline void hearth_tsan_release(void *addr) { (void)addr; }
#endif

#endif
