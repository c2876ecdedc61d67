// The Linux readiness API the event loops use (epoll, eventfd). Swift's Glibc module does
// not export these headers, so this module only includes them; it has no code of its own.
// On other systems it is empty (macOS uses kqueue from the Darwin module).
#ifndef CHEARTH_EPOLL_H
#define CHEARTH_EPOLL_H
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif
#endif
