// Linux headers that Swift's Glibc module does not export.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <spawn.h>
#include <malloc.h>

/// accept4(2) is only declared under _GNU_SOURCE, which Swift's Glibc import does not set; call it by number.
static inline int gh_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags) {
    return (int)syscall(SYS_accept4, fd, address, length, flags);
}

/// Names the calling thread (what top -H and gdb show); prctl(2) is variadic, which Swift cannot call.
static inline int gh_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}

/// Closes every descriptor from `from` up in a posix_spawn child (glibc 2.34 and later); spawn.h
/// declares it only under _GNU_SOURCE. Unlike closing a list read from /proc/self/fd, it also
/// covers descriptors another thread opens between the listing and the spawn.
int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
