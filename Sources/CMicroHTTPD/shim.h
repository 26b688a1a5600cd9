#ifndef PIPELINE_CMICROHTTPD_SHIM_H
#define PIPELINE_CMICROHTTPD_SHIM_H
#include <stdint.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/* MHD_start_daemon, MHD_get_daemon_info and MHD_get_connection_info are variadic: typed
   wrappers for the calls we make. Every option is chosen in Swift and passed as an array. */

static inline struct MHD_Daemon *pipeline_mhd_start(
    unsigned flags, uint16_t port, MHD_AccessHandlerCallback handler, void *context, const struct MHD_OptionItem *options)
{
    return MHD_start_daemon(flags, port, NULL, NULL, handler, context, MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

static inline uint16_t pipeline_mhd_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

static inline int pipeline_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/* The client's address as text (IPv4 or IPv6) into `buffer`; 0 when known. */
static inline int pipeline_mhd_connection_address(struct MHD_Connection *connection, char *buffer, socklen_t size) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return -1;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET)
        return inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)address)->sin_addr, buffer, size) ? 0 : -1;
    if (address->sa_family == AF_INET6)
        return inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)address)->sin6_addr, buffer, size) ? 0 : -1;
    return -1;
}
#endif
