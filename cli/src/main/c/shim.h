/*
 * The native shim's shared declarations: its limits and exit statuses, the byte buffer and
 * JSON peek types, the shim's state (defined in cotenant-shim.c) and every function one part
 * calls in another. The parts: shim-json.c (buffers, JSON quoting and the peek at a message),
 * shim-daemon.c (the Cotenant home, exits, the pending requests, reaching and resuming the daemon),
 * cotenant-shim.c (the state, relaying, the command line).
 */
#ifndef COTENANT_SHIM_H
#define COTENANT_SHIM_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef COTENANT_SHIM_VERSION
#define COTENANT_SHIM_VERSION "development"
#endif

/* The shim protocol's version (Wire.VERSION). */
#define PROTOCOL_VERSION 1
/* The longest message either side may send, in bytes (LineChannel.MAX_LINE). */
#define MAX_LINE ((size_t)32 << 20)
/* The error code of a request whose daemon went away (Shim.INTERRUPTED). */
#define INTERRUPTED (-32073)
/* How long the daemon may take to answer the hello (Shim.HELLO_TIMEOUT). */
#define HELLO_TIMEOUT_MS 120000LL
/* How long a shim tries to reach a daemon again after its daemon went away. */
#define RESUME_MS 60000LL
/* Past this many bytes waiting in one direction, the shim stops reading the other end. */
#define HIGH_WATER ((size_t)1 << 20)
#define READ_CHUNK (64 * 1024)
/* Exit statuses (Shim.EXIT_CLIENT_CLOSED, Shim.EXIT_DAEMON; 2 is bad usage, as for the CLI). */
#define EXIT_CLIENT_CLOSED 0
#define EXIT_DAEMON 1
#define EXIT_USAGE 2


/* Bytes [off, len) of p are the content. */
typedef struct {
  char *p;
  size_t off, len, cap;
} buf_t;

typedef struct {
  const char *p, *end;
} cursor_t;

/* What the shim reads of one line (ShimJson.Peek, and a little more). */
typedef struct {
  int object;       /* the line is a JSON object */
  char *id;         /* the "id" as JSON text (string ids quoted as the daemon quotes them); NULL when absent */
  char *key;        /* the id's RequestId key ("n:1" for 1, 1.0 and 1e0; "s" and the quoted text for a string); NULL when no valid id */
  char *method;     /* the "method" when a string */
  int result;       /* a "result" member is present */
  int cotenant;     /* a "cotenant" member is present: the line is the daemon's own, never JSON-RPC */
  char *kind;       /* the "cotenant" member when a string */
  char *placement;  /* the "placement" member of a "placed" notice when a string */
  char *error;      /* the "error" member when a string */
  char *reason;     /* the "reason" member when a string */
  long long pid;    /* the "daemon_pid" member when an integer, else -1 */
} peek_t;

enum { ST_HELLO, ST_RELAY, ST_STARTING, ST_RETRY };
enum { C_OK, C_ABSENT, C_BUSY, C_FAILED };

/* The shim's state. */
extern const char *g_name;
extern char *g_home;
extern char *g_socket;
extern const char *g_java;
extern const char *g_jar;
extern int g_no_start;
extern char **g_serve_args;
extern int g_serve_count;
extern char **g_configs;
extern int g_config_count;
extern int g_state;
extern int g_sock;
extern int g_sock_shut;
extern int g_sock_write_dead;
extern buf_t g_hello;
extern buf_t g_sock_in;
extern buf_t g_sock_out;
extern buf_t g_stdin_in;
extern buf_t g_out;
extern size_t g_sock_scan, g_stdin_scan;
extern int g_stdin_open;
extern int g_read_client;
extern size_t g_stdout_chunk;
extern long long g_daemon_pid;
extern long long g_hello_deadline;
extern long long g_resume_deadline;
extern long long g_retry_at;
extern int g_resuming;
extern pid_t g_child;
extern int g_started;
/* A request the client sent and the daemon has not answered: its id as the client wrote it, and its key. */
typedef struct {
  char *id;
  char *key;
} pending_t;
extern pending_t *g_pending;
extern size_t g_pending_count, g_pending_cap;
extern char *g_init;
extern size_t g_init_len;
extern char *g_init_id;
extern int g_initialized;
extern int g_resumable;
extern char *g_stopping;
extern char g_why[4096];

/* Functions shared between the parts. */
void out_of_memory(void);
size_t buf_size(const buf_t *b);
char *buf_data(const buf_t *b);
void buf_shrink(buf_t *b);
void buf_reserve(buf_t *b, size_t extra);
void buf_add(buf_t *b, const void *data, size_t n);
void buf_adds(buf_t *b, const char *s);
void buf_addc(buf_t *b, char c);
void buf_drop(buf_t *b, size_t n);
void buf_clear(buf_t *b);
char *buf_cstr(const buf_t *b);
char *dup_str(const char *s);
void json_quote(buf_t *out, const char *s, size_t n);
void json_ws(cursor_t *c);
int hex_value(char h);
int read_u16(const char *p, const char *end, unsigned *v);
void add_utf8(buf_t *out, unsigned cp);
int json_string(cursor_t *c, buf_t *out);
int json_value(cursor_t *c);
void peek_free(peek_t *m);
void set_string(char **slot, const buf_t *decoded);
void peek(const char *line, size_t n, peek_t *m);
long long now_ms(void);
char *id_key(const char *text, size_t len, int kind);
void pending_add(const char *id, const char *key);
void pending_remove(const char *key);
void answer_pending(const char *why);
void finish(int status);
void fail(int status, const char *fmt, ...);
char *normalize(const char *path);
char *join(const char *a, const char *b);
char *cwd(void);
char *absolute(const char *path);
char *user_home(void);
int java_space(char c);
char *strip(const char *s);
char *home_from(const char *value, const char *what);
char *resolve_home(const char *option);
const char *user_name(uid_t uid, char *into, size_t n);
int check_peer(int fd);
int try_connect(int *fd_out);
int trusted_file(const char *path, char *why, size_t n);
void spawn_starter(void);
void send_hello(int fd);
void no_daemon(void);
void reach_daemon(void);
void begin_resume(void);
void daemon_gone(const char *why);
void client_line(const char *line, size_t n);
void hello_answer(const char *line, size_t n);
void daemon_line(const char *line, size_t n);
int take_lines(buf_t *in, size_t *scan, int trim, void (*each)(const char *, size_t));
void client_too_long(void);
void read_client(void);
void read_daemon(void);
void write_daemon(buf_t *b);
void write_client(void);
void relay(void);
void usage_error(const char *fmt, const char *arg);

#endif
