// What Swift's Glibc module lacks on Linux, for Producers' descriptor poller and Multicast's
// main-thread check: a header, no code of ours beyond one inline function. Empty elsewhere.
#ifndef CINDEFINITEOBSERVABLE_H
#define CINDEFINITEOBSERVABLE_H
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

// libdispatch's hooks for a run loop on the main thread, which CoreFoundation's uses
// (swift-corelibs-libdispatch, src/queue.c): the main queue's eventfd, written each time the
// queue gets work while it is bound to the main thread (before `dispatch_main`), and the call
// that runs that work, on the main thread.
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *_Nullable message);

// Whether the calling thread is the process's main thread: its thread ID is the process ID.
static inline int cindefinite_is_main_thread(void) { return syscall(SYS_gettid) == getpid(); }
#endif
#endif
