#define _GNU_SOURCE
#include "CLinux.h"
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>

ssize_t pipeline_send_with_descriptor(int socket, const void *bytes, size_t length, int descriptor) {
    struct iovec part = {.iov_base = (void *)bytes, .iov_len = length};
    struct msghdr message = {.msg_iov = &part, .msg_iovlen = 1};
    union { struct cmsghdr header; char space[CMSG_SPACE(sizeof(int))]; } control;
    if (descriptor >= 0) {
        memset(&control, 0, sizeof control);
        message.msg_control = control.space;
        message.msg_controllen = sizeof control.space;
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(header), &descriptor, sizeof(int));
    }
    ssize_t sent;
    do { sent = sendmsg(socket, &message, MSG_NOSIGNAL); } while (sent < 0 && errno == EINTR);
    return sent;
}

ssize_t pipeline_receive_with_descriptor(int socket, void *bytes, size_t capacity, int *descriptor) {
    *descriptor = -1;
    struct iovec part = {.iov_base = bytes, .iov_len = capacity};
    /* Room for a few: every descriptor that arrives is either kept (the first) or closed. */
    union { struct cmsghdr header; char space[CMSG_SPACE(8 * sizeof(int))]; } control;
    struct msghdr message = {.msg_iov = &part, .msg_iovlen = 1, .msg_control = control.space, .msg_controllen = sizeof control.space};
    ssize_t received;
    do { received = recvmsg(socket, &message, MSG_CMSG_CLOEXEC); } while (received < 0 && errno == EINTR);
    if (received < 0) return -1;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t index = 0; index < count; index++) {
            int arrived;
            memcpy(&arrived, CMSG_DATA(header) + index * sizeof(int), sizeof(int));
            if (*descriptor < 0) *descriptor = arrived; else close(arrived);
        }
    }
    if (message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
        if (*descriptor >= 0) close(*descriptor);
        *descriptor = -1;
        errno = EMSGSIZE;
        return -1;
    }
    return received;
}

int pipeline_accept(int socket) {
    while (1) {
        int accepted = accept4(socket, NULL, NULL, SOCK_CLOEXEC);
        if (accepted >= 0) return accepted;
        if (errno == EINTR || errno == ECONNABORTED) continue;
        /* Out of descriptors or memory for a moment: wait, and take the next one then. */
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) { usleep(100000); continue; }
        return -1;
    }
}

int pipeline_connect_at_once(int socket, const struct sockaddr *address, socklen_t length) {
    int flags = fcntl(socket, F_GETFL);
    if (flags < 0 || fcntl(socket, F_SETFL, flags | O_NONBLOCK) != 0) return -1;
    int status;
    do { status = connect(socket, address, length); } while (status < 0 && errno == EINTR);
    int code = errno;
    fcntl(socket, F_SETFL, flags);
    errno = code;
    return status;
}

ssize_t pipeline_copy_file_range(int in, off_t *in_offset, int out, off_t *out_offset, size_t length) {
    ssize_t copied;
    do { copied = copy_file_range(in, in_offset, out, out_offset, length, 0); } while (copied < 0 && errno == EINTR);
    return copied;
}

int pipeline_peer_uid(int socket, uid_t *uid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(socket, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0 || length != sizeof credentials) return -1;
    *uid = credentials.uid;
    return 0;
}

int pipeline_peer_gone(int socket) {
    struct pollfd watched = {.fd = socket, .events = POLLRDHUP};
    return poll(&watched, 1, 0) > 0 && (watched.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

int pipeline_open_for_reading(int descriptor) {
    int flags = fcntl(descriptor, F_GETFL);
    return flags >= 0 && (flags & O_PATH) == 0 && (flags & O_ACCMODE) != O_WRONLY;
}

int pipeline_open_path(const char *path) {
    return open(path, O_PATH | O_CLOEXEC);
}

void pipeline_name_thread(const char *name) {
    char shortened[16];
    strncpy(shortened, name, sizeof shortened - 1);
    shortened[sizeof shortened - 1] = 0;
    pthread_setname_np(pthread_self(), shortened);
}

extern char **environ;

pid_t pipeline_spawn(char *const argv[], char *const envp[], int *input, int *output, int *error, int *exited) {
    int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) goto fail;
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    posix_spawnattr_init(&attributes);
    sigset_t defaults, none;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setpgroup(&attributes, 0);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    pid_t pid = -1;
    int failed = posix_spawnp(&pid, argv[0], &actions, &attributes, argv, envp ? envp : environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (failed != 0) { errno = failed; goto fail; }
    close(in[0]);
    close(out[1]);
    close(err[1]);
    fcntl(in[1], F_SETFL, fcntl(in[1], F_GETFL) | O_NONBLOCK);
    *input = in[1];
    *output = out[0];
    *error = err[0];
#ifdef SYS_pidfd_open
    *exited = (int)syscall(SYS_pidfd_open, pid, 0);
#else
    *exited = -1;
#endif
    return pid;
fail:;
    int saved = errno;
    for (int i = 0; i < 2; i++) {
        if (in[i] >= 0) close(in[i]);
        if (out[i] >= 0) close(out[i]);
        if (err[i] >= 0) close(err[i]);
    }
    errno = saved;
    return -1;
}
