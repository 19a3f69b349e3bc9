// footprint [--distinct N | --same N] FILE: the floor with no hop, in C (`epoll_wait`, the
// inotify `read`, `pread`, `write`, with the file and its directory watched, as `follow`
// watches them), which also runs N calls of made-up work at each event: N distinct functions
// (`--distinct`, each in a cache line of its own: code the event brings back into the cache),
// or one function N times (`--same`: the same instructions, one line of code). For
// `Benchmarks/follow-vs-tail --footprint`, which shows what a paced event's CPU owes to the
// code it runs rather than to its instructions.
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <unistd.h>

#define F(i)                                                                                  \
  __attribute__((noinline, aligned(64))) static unsigned long f##i(unsigned long x) {         \
    x = x * (2 * i + 3) + i;                                                                   \
    x ^= x >> (i % 13 + 1);                                                                    \
    return x * (4 * i + 5) + i;                                                                \
  }
#define F8(i) F(i##0) F(i##1) F(i##2) F(i##3) F(i##4) F(i##5) F(i##6) F(i##7)
#define F64(i) F8(i##0) F8(i##1) F8(i##2) F8(i##3) F8(i##4) F8(i##5) F8(i##6) F8(i##7)
F64(1) F64(2) F64(3) F64(4) F64(5) F64(6) F64(7) F64(8)
#define P8(i) f##i##0, f##i##1, f##i##2, f##i##3, f##i##4, f##i##5, f##i##6, f##i##7,
#define P64(i) P8(i##0) P8(i##1) P8(i##2) P8(i##3) P8(i##4) P8(i##5) P8(i##6) P8(i##7)
static unsigned long (*const functions[512])(unsigned long) = {
  P64(1) P64(2) P64(3) P64(4) P64(5) P64(6) P64(7) P64(8)
};
static volatile unsigned long sink;

int main(int argc, char **argv) {
  const char *path = argv[argc - 1];
  int distinct = 0, same = 0;
  for (int i = 1; i + 1 < argc; i++) {
    if (strcmp(argv[i], "--distinct") == 0) distinct = atoi(argv[i + 1]);
    if (strcmp(argv[i], "--same") == 0) same = atoi(argv[i + 1]);
  }
  if (distinct > 512) distinct = 512;
  int fd = open(path, O_RDONLY | O_CLOEXEC | 01000000);  // O_NOATIME, as follow opens it
  off_t offset = lseek(fd, 0, SEEK_END);
  int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  inotify_add_watch(in, path, IN_MODIFY | IN_ATTRIB);
  char *copy = strdup(path);
  inotify_add_watch(in, dirname(copy), IN_CREATE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE);
  int poller = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event watch = {.events = EPOLLIN, .data.u64 = 1}, ready[64];
  epoll_ctl(poller, EPOLL_CTL_ADD, in, &watch);
  static char buffer[1 << 16], events[1024];
  for (;;) {
    if (epoll_wait(poller, ready, 64, -1) <= 0 || read(in, events, sizeof events) <= 0) continue;
    unsigned long x = 1;
    for (int i = 0; i < distinct; i++) x = functions[i](x);
    for (int i = 0; i < same; i++) x = functions[0](x);
    sink = x;
    for (;;) {
      ssize_t count = pread(fd, buffer, sizeof buffer, offset);
      if (count <= 0) break;
      offset += count;
      for (ssize_t written = 0; written < count;) written += write(1, buffer + written, count - written);
      if (count < (ssize_t)sizeof buffer) break;
    }
  }
}
