// Atomic operations on a machine word, for the multicast sources of IndefiniteObservable.
//
// Synchronization's `Atomic` needs macOS 15 / iOS 18 and the package supports older systems, so
// the few operations the send path needs are written here over the compiler's atomic builtins,
// the way swift-nio's CNIOAtomics did. They are `static inline`: Swift's importer compiles them
// into the caller, so an acquire load costs what a plain load costs on x86-64 and an `ldar` on
// arm64, with no function call.
#ifndef C_INDEFINITE_OBSERVABLE_ATOMICS_H
#define C_INDEFINITE_OBSERVABLE_ATOMICS_H

#include <stdbool.h>
#include <stdint.h>

/// Reads `*word`; later reads and writes of this thread cannot move before it.
static inline intptr_t cio_atomic_load_acquire(const intptr_t *word) {
  return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

/// Writes `value` to `*word`; earlier reads and writes of this thread cannot move after it.
static inline void cio_atomic_store_release(intptr_t *word, intptr_t value) {
  __atomic_store_n(word, value, __ATOMIC_RELEASE);
}

/// Subtracts `value` from `*word` and returns what `*word` held before.
static inline intptr_t cio_atomic_fetch_sub(intptr_t *word, intptr_t value) {
  return __atomic_fetch_sub(word, value, __ATOMIC_ACQ_REL);
}

/// Replaces `*word` with `desired` if it holds `expected`; returns whether it did.
static inline bool cio_atomic_compare_exchange(intptr_t *word, intptr_t expected,
                                               intptr_t desired) {
  return __atomic_compare_exchange_n(word, &expected, desired, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE);
}

#endif
