#ifndef PIPELINE_CLINUX_H
#define PIPELINE_CLINUX_H
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

/* Linux calls that Swift's Glibc module leaves out (they need _GNU_SOURCE or macros Swift cannot
   import): passing descriptors over a Unix socket, accept4, copy_file_range. */

/* One message on a SOCK_SEQPACKET Unix socket, with one open file descriptor riding along
   (SCM_RIGHTS): how a client on the same machine hands the local engine a file it may read.
   Both return -1 with errno set on failure. */

/* Sends `length` bytes and, when `descriptor` >= 0, that descriptor. */
ssize_t pipeline_send_with_descriptor(int socket, const void *bytes, size_t length, int descriptor);

/* Receives one message into `bytes` (at most `capacity`: a longer one fails with EMSGSIZE) and
   the one descriptor that came with it into `*descriptor` (-1 when none). Descriptors beyond the
   first, or any that came with a message too long, are closed: a peer cannot make the receiver
   hold open files it did not ask for. 0 is the peer's orderly close. */
ssize_t pipeline_receive_with_descriptor(int socket, void *bytes, size_t capacity, int *descriptor);

/* The next connection on a listening socket, closed on exec, waiting out a lack of descriptors
   or memory; -1 once it is shut down. */
int pipeline_accept(int socket);

/* connect(2) that never waits: a listener whose backlog is full (one that stopped accepting)
   fails it with EAGAIN at once instead of blocking the caller. The socket stays blocking. */
int pipeline_connect_at_once(int socket, const struct sockaddr *address, socklen_t length);

/* copy_file_range(2): `length` bytes from `in` at `*in_offset` to `out` at `*out_offset`, in the
   kernel; both offsets move on. The count copied, 0 at the end of `in`, -1 with errno. */
ssize_t pipeline_copy_file_range(int in, off_t *in_offset, int out, off_t *out_offset, size_t length);

/* The user id of the process at the other end of a connected Unix socket (SO_PEERCRED); -1 on failure. */
int pipeline_peer_uid(int socket, uid_t *uid);

/* Whether the peer of a connected socket has closed or shut down its end (POLLRDHUP), without waiting. */
int pipeline_peer_gone(int socket);

/* Starts `argv[0]` (a path, or a name looked up in this process's PATH) with `argv` and the
   environment `envp` (this process's own when NULL), in a process group of its own (so a timeout can end whatever it started), with
   SIGPIPE back at its default and no signal blocked. Its standard input, output and error are
   pipes whose other ends come back in `*input` (non-blocking), `*output` and `*error`, closed on
   exec; `*exited` is a pidfd that polls readable once it exits (-1 when the kernel has none).
   The child's pid, or -1 with errno set (nothing is left open then). */
pid_t pipeline_spawn(char *const argv[], char *const envp[], int *input, int *output, int *error, int *exited);

/* Whether `descriptor` was opened for reading (not write-only, not O_PATH). */
int pipeline_open_for_reading(int descriptor);

/* `path` opened with O_PATH (the file itself, neither read nor written: a FIFO is not waited
   on), closed on exec; -1 with errno set. */
int pipeline_open_path(const char *path);

/* Names the calling thread (at most 15 bytes are kept) as `ps`, `top` and /proc show it. */
void pipeline_name_thread(const char *name);
#endif
