// Clang's thread-safety annotations (-Wthread-safety), as macros that are
// empty under other compilers: a member GUARDED_BY(mu_) may only be touched
// with mu_ held, a function REQUIRES(mu_) only be called so, and the
// compiler checks both. `./run test --clang` builds with the analysis on and
// its warnings as errors; the gcc build (the default) ignores them.
// Locks that the analysis understands are in common/mutex.h and
// common/rw_lock.h.
#pragma once

#if defined(__clang__)
#define ZCRAWL_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define ZCRAWL_THREAD_ANNOTATION(x)
#endif

#define CAPABILITY(x) ZCRAWL_THREAD_ANNOTATION(capability(x))
#define SCOPED_CAPABILITY ZCRAWL_THREAD_ANNOTATION(scoped_lockable)
#define GUARDED_BY(x) ZCRAWL_THREAD_ANNOTATION(guarded_by(x))
#define PT_GUARDED_BY(x) ZCRAWL_THREAD_ANNOTATION(pt_guarded_by(x))
#define REQUIRES(...) ZCRAWL_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define REQUIRES_SHARED(...) ZCRAWL_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))
#define ACQUIRE(...) ZCRAWL_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define ACQUIRE_SHARED(...) ZCRAWL_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#define RELEASE(...) ZCRAWL_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define RELEASE_SHARED(...) ZCRAWL_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
#define RELEASE_GENERIC(...) ZCRAWL_THREAD_ANNOTATION(release_generic_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) ZCRAWL_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#define TRY_ACQUIRE_SHARED(...) ZCRAWL_THREAD_ANNOTATION(try_acquire_shared_capability(__VA_ARGS__))
#define EXCLUDES(...) ZCRAWL_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define NO_THREAD_SAFETY_ANALYSIS ZCRAWL_THREAD_ANNOTATION(no_thread_safety_analysis)
