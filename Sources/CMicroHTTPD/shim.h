#ifndef PIPELINE_CMICROHTTPD_SHIM_H
#define PIPELINE_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/* MHD_start_daemon and MHD_get_daemon_info are variadic: typed wrappers for what we use. */

/* Starts a daemon on host:port (port 0 = ephemeral) with one thread per connection, so a slow
   client never blocks another; with a PEM key and certificate it speaks HTTPS (GnuTLS inside
   libmicrohttpd). Returns NULL when the address is invalid, cannot be bound, or TLS fails. */
static inline struct MHD_Daemon *pipeline_mhd_start(
    const char *host, uint16_t port, unsigned connection_limit, unsigned idle_timeout_seconds,
    MHD_AccessHandlerCallback handler, void *handler_context,
    MHD_RequestCompletedCallback completed, void *completed_context,
    const char *key_pem, const char *certificate_pem)
{
    struct sockaddr_in address;
    memset(&address, 0, sizeof(address));
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    if (inet_pton(AF_INET, host, &address.sin_addr) != 1) {
        return NULL;
    }
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL;
    if (key_pem != NULL && certificate_pem != NULL) {
        return MHD_start_daemon(
            flags | MHD_USE_TLS, port, NULL, NULL, handler, handler_context,
            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&address,
            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
            MHD_OPTION_CONNECTION_TIMEOUT, idle_timeout_seconds,
            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(512 * 1024),
            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
            MHD_OPTION_HTTPS_MEM_KEY, key_pem,
            MHD_OPTION_HTTPS_MEM_CERT, certificate_pem,
            MHD_OPTION_END);
    }
    return MHD_start_daemon(
        flags, port, NULL, NULL, handler, handler_context,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&address,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, idle_timeout_seconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(512 * 1024),
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
        MHD_OPTION_END);
}

/* The port the daemon is bound to (useful after asking for port 0). */
static inline uint16_t pipeline_mhd_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}
#endif
