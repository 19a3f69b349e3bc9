// Linux's epoll (sys/epoll.h), which the Glibc module that Swift ships does not include.
#ifndef CEPOLL_H
#define CEPOLL_H
#ifdef __linux__
#include <sys/epoll.h>
#endif
#endif
