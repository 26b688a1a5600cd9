#ifndef PIPELINE_CPOSTGRES_SHIM_H
#define PIPELINE_CPOSTGRES_SHIM_H
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

/* libpq is loaded when a command first needs Postgres (`pipeline serve --state postgres://...`),
   not linked: the binary and its package then need no libpq unless that is used. What the
   Postgres module uses of libpq's stable ABI (soname 5) is declared here: the opaque connection
   and result types, the public part of a notification, the enum values it compares, and one
   typed wrapper per call, each finding its function by name in the loaded library once. Every
   wrapper is safe to call when libpq is not loaded: it answers as for a broken connection. */

typedef struct pg_conn PGconn;
typedef struct pg_result PGresult;

/* libpq's PGnotify, as its header lays it out (only the first three fields are public). */
typedef struct pgNotify {
    char *relname;   /* the channel */
    int be_pid;      /* the server process that sent it */
    char *extra;     /* the payload */
    struct pgNotify *next;
} PGnotify;

enum {
    PIPELINE_PQ_CONNECTION_OK = 0,       /* ConnStatusType */
    PIPELINE_PQ_EMPTY_QUERY = 0,         /* ExecStatusType */
    PIPELINE_PQ_COMMAND_OK = 1,
    PIPELINE_PQ_TUPLES_OK = 2,
    PIPELINE_PQ_TRANSACTION_IDLE = 0,    /* PGTransactionStatusType */
    PIPELINE_PQ_TRANSACTION_IN_ERROR = 3,
    PIPELINE_PQ_FIELD_SQLSTATE = 'C',    /* PG_DIAG_* */
    PIPELINE_PQ_FIELD_MESSAGE = 'M',
    PIPELINE_PQ_FIELD_DETAIL = 'D',
    PIPELINE_PQ_FIELD_HINT = 'H',
};

#define PIPELINE_PQ_LIBRARY "libpq.so.5"

/* A function of the loaded libpq; NULL while it is not loaded. RTLD_NOLOAD never loads anything:
   it finds the loaded copy. (No handle is kept in a variable: each Swift file that calls these
   wrappers gets its own copy of a static one.) */
static inline void *pipeline_pq_symbol(const char *name) {
    void *library = dlopen(PIPELINE_PQ_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
    if (library == NULL) return NULL;
    void *symbol = dlsym(library, name);
    dlclose(library);
    return symbol;
}

/* Loads libpq from `name` (PIPELINE_PQ_LIBRARY, but another in tests); -1 with the loader's
   reason in `buffer` when it cannot. The library stays loaded for the process's life. */
static inline int pipeline_pq_load(const char *name, char *buffer, size_t size) {
    void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    const char *reason = library == NULL ? dlerror() : NULL;
    if (library != NULL && dlsym(library, "PQexecParams") == NULL) reason = "it has no PQexecParams: it is not libpq";
    if (reason == NULL) return 0;
    if (size > 0) {
        strncpy(buffer, reason, size - 1);
        buffer[size - 1] = 0;
    }
    return -1;
}

/* Each call site looks its function up once and keeps it (libpq is never unloaded): a lookup
   takes the loader's lock. While libpq is not loaded it finds nothing, and looks again next time. */
#define PIPELINE_PQ_CALL(type, name) ({                                     \
    static void *pipeline_pq_found;                                        \
    void *found = __atomic_load_n(&pipeline_pq_found, __ATOMIC_ACQUIRE);   \
    if (found == NULL) {                                                   \
        found = pipeline_pq_symbol(name);                                  \
        __atomic_store_n(&pipeline_pq_found, found, __ATOMIC_RELEASE);     \
    }                                                                      \
    (type)found;                                                           \
})

/* Connects (blocking, up to the connect_timeout among the keywords); NULL only when libpq is
   not loaded or out of memory. Check pipeline_pq_status, and pipeline_pq_finish it in any case. */
static inline PGconn *pipeline_pq_connect(const char *const *keywords, const char *const *values) {
    PGconn *(*connect)(const char *const *, const char *const *, int) =
        PIPELINE_PQ_CALL(PGconn *(*)(const char *const *, const char *const *, int), "PQconnectdbParams");
    return connect ? connect(keywords, values, 0) : NULL;
}

static inline int pipeline_pq_status(const PGconn *connection) {
    int (*status)(const PGconn *) = PIPELINE_PQ_CALL(int (*)(const PGconn *), "PQstatus");
    return status && connection ? status(connection) : -1;
}

static inline int pipeline_pq_transaction_status(const PGconn *connection) {
    int (*status)(const PGconn *) = PIPELINE_PQ_CALL(int (*)(const PGconn *), "PQtransactionStatus");
    return status && connection ? status(connection) : -1;
}

/* The connection's last error, owned by the connection (valid until its next call). */
static inline const char *pipeline_pq_error(const PGconn *connection) {
    const char *(*message)(const PGconn *) = PIPELINE_PQ_CALL(const char *(*)(const PGconn *), "PQerrorMessage");
    return message && connection ? message(connection) : "libpq is not loaded";
}

static inline void pipeline_pq_finish(PGconn *connection) {
    void (*finish)(PGconn *) = PIPELINE_PQ_CALL(void (*)(PGconn *), "PQfinish");
    if (finish && connection) finish(connection);
}

/* Notices and warnings (a NOTICE from CREATE TABLE IF NOT EXISTS) are dropped rather than
   printed on standard error, libpq's default. */
static void pipeline_pq_ignore_notice(void *argument, const char *message) {
    (void)argument; (void)message;
}

static inline void pipeline_pq_quiet(PGconn *connection) {
    void *(*processor)(PGconn *, void (*)(void *, const char *), void *) =
        PIPELINE_PQ_CALL(void *(*)(PGconn *, void (*)(void *, const char *), void *), "PQsetNoticeProcessor");
    if (processor && connection) processor(connection, pipeline_pq_ignore_notice, NULL);
}

/* One statement with text parameters (NULL for SQL NULL) and text results: one round trip. */
static inline PGresult *pipeline_pq_exec_params(PGconn *connection, const char *command, int count, const char *const *values) {
    PGresult *(*exec)(PGconn *, const char *, int, const void *, const char *const *, const int *, const int *, int) =
        PIPELINE_PQ_CALL(PGresult *(*)(PGconn *, const char *, int, const void *, const char *const *, const int *, const int *, int),
                         "PQexecParams");
    return exec && connection ? exec(connection, command, count, NULL, values, NULL, NULL, 0) : NULL;
}

/* Statements separated by semicolons, without parameters (the simple protocol): one round trip. */
static inline PGresult *pipeline_pq_exec(PGconn *connection, const char *commands) {
    PGresult *(*exec)(PGconn *, const char *) = PIPELINE_PQ_CALL(PGresult *(*)(PGconn *, const char *), "PQexec");
    return exec && connection ? exec(connection, commands) : NULL;
}

static inline int pipeline_pq_result_status(const PGresult *result) {
    int (*status)(const PGresult *) = PIPELINE_PQ_CALL(int (*)(const PGresult *), "PQresultStatus");
    return status && result ? status(result) : -1;
}

/* A field of a failed result's error (PIPELINE_PQ_FIELD_*); NULL when the error has none. */
static inline const char *pipeline_pq_error_field(const PGresult *result, int field) {
    const char *(*read)(const PGresult *, int) = PIPELINE_PQ_CALL(const char *(*)(const PGresult *, int), "PQresultErrorField");
    return read && result ? read(result, field) : NULL;
}

static inline int pipeline_pq_rows(const PGresult *result) {
    int (*rows)(const PGresult *) = PIPELINE_PQ_CALL(int (*)(const PGresult *), "PQntuples");
    return rows && result ? rows(result) : 0;
}

static inline int pipeline_pq_columns(const PGresult *result) {
    int (*columns)(const PGresult *) = PIPELINE_PQ_CALL(int (*)(const PGresult *), "PQnfields");
    return columns && result ? columns(result) : 0;
}

static inline const char *pipeline_pq_column_name(const PGresult *result, int column) {
    const char *(*name)(const PGresult *, int) = PIPELINE_PQ_CALL(const char *(*)(const PGresult *, int), "PQfname");
    return name && result ? name(result, column) : NULL;
}

/* A value's text (owned by the result); its length in bytes comes from pipeline_pq_length. */
static inline const char *pipeline_pq_value(const PGresult *result, int row, int column) {
    char *(*value)(const PGresult *, int, int) = PIPELINE_PQ_CALL(char *(*)(const PGresult *, int, int), "PQgetvalue");
    return value && result ? value(result, row, column) : NULL;
}

static inline int pipeline_pq_length(const PGresult *result, int row, int column) {
    int (*length)(const PGresult *, int, int) = PIPELINE_PQ_CALL(int (*)(const PGresult *, int, int), "PQgetlength");
    return length && result ? length(result, row, column) : 0;
}

static inline int pipeline_pq_is_null(const PGresult *result, int row, int column) {
    int (*null)(const PGresult *, int, int) = PIPELINE_PQ_CALL(int (*)(const PGresult *, int, int), "PQgetisnull");
    return null && result ? null(result, row, column) : 1;
}

/* The rows an INSERT, UPDATE, DELETE, MERGE, SELECT or MOVE touched, as text; "" for others. */
static inline const char *pipeline_pq_affected(PGresult *result) {
    char *(*affected)(PGresult *) = PIPELINE_PQ_CALL(char *(*)(PGresult *), "PQcmdTuples");
    return affected && result ? affected(result) : "";
}

static inline void pipeline_pq_clear(PGresult *result) {
    void (*clear)(PGresult *) = PIPELINE_PQ_CALL(void (*)(PGresult *), "PQclear");
    if (clear && result) clear(result);
}

/* The connection's socket, to poll for notifications; -1 when there is none. */
static inline int pipeline_pq_socket(const PGconn *connection) {
    int (*socket)(const PGconn *) = PIPELINE_PQ_CALL(int (*)(const PGconn *), "PQsocket");
    return socket && connection ? socket(connection) : -1;
}

/* Reads what the server sent without waiting; 0 when the connection failed. */
static inline int pipeline_pq_consume_input(PGconn *connection) {
    int (*consume)(PGconn *) = PIPELINE_PQ_CALL(int (*)(PGconn *), "PQconsumeInput");
    return consume && connection ? consume(connection) : 0;
}

/* The next notification read, or NULL; release each with pipeline_pq_free. */
static inline PGnotify *pipeline_pq_next_notification(PGconn *connection) {
    PGnotify *(*notifies)(PGconn *) = PIPELINE_PQ_CALL(PGnotify *(*)(PGconn *), "PQnotifies");
    return notifies && connection ? notifies(connection) : NULL;
}

static inline void pipeline_pq_free(void *memory) {
    void (*release)(void *) = PIPELINE_PQ_CALL(void (*)(void *), "PQfreemem");
    if (release && memory) release(memory);
}

#endif
