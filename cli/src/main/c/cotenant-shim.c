/*
 * cotenant-shim: the native stdio shim of `cotenant connect`. It relays one MCP client's stdio
 * session of one server to the Cotenant daemon's Unix socket, exactly as the JVM shim
 * (dev.cotenant.cli.daemon.Shim) does, in a few hundred KiB instead of a JVM's 20-odd MiB.
 *
 *   cotenant-shim [--java JAVA --jar JAR] [--home DIR] connect NAME [CONFIG...]
 *                 [--no-start] [--records-dir DIR] [--set KEY=VALUE]...
 *   cotenant-shim --version
 *
 * Everything after `connect` means what it means to `java -jar cotenant.jar connect`. When no
 * daemon answers, the shim runs `JAVA -jar JAR connect NAME --start-only [--records-dir DIR]
 * [--set KEY=VALUE]...` and waits for it: the JVM takes the home's start lock and starts the
 * daemon, so the native shim never starts one itself. See docs/daemon.md.
 *
 * One thread, one poll loop: the client's lines go to the socket as they are, the daemon's
 * lines go to the client as they are; the shim reads only the top-level "id", "method",
 * "result" and "cotenant" members of each message, to know which of the client's requests are
 * unanswered, whether the client's initialize was answered, and which lines are the daemon's own.
 * C99 and POSIX (Linux: SO_PEERCRED, /proc); nothing beyond libc.
 */
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
#define INTERRUPTED (-32005)
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

/* ---- byte buffers ------------------------------------------------------------------------ */

/* Bytes [off, len) of p are the content. */
typedef struct {
  char *p;
  size_t off, len, cap;
} buf_t;

static void out_of_memory(void) {
  static const char m[] = "cotenant-shim: out of memory\n";
  ssize_t ignored = write(2, m, sizeof m - 1);
  (void)ignored;
  _exit(EXIT_DAEMON);
}

static size_t buf_size(const buf_t *b) { return b->len - b->off; }

static char *buf_data(const buf_t *b) { return b->p + b->off; }

/* Gives back the memory of a buffer that grew for one large message. */
static void buf_shrink(buf_t *b) {
  if (b->cap > 4 * (size_t)READ_CHUNK && buf_size(b) < (size_t)READ_CHUNK) {
    size_t n = buf_size(b);
    char *q = malloc(READ_CHUNK);
    if (q == NULL) {
      return;
    }
    memcpy(q, buf_data(b), n);
    free(b->p);
    b->p = q;
    b->off = 0;
    b->len = n;
    b->cap = READ_CHUNK;
  }
}

static void buf_reserve(buf_t *b, size_t extra) {
  if (b->off > 0 && b->len + extra > b->cap) {
    memmove(b->p, b->p + b->off, b->len - b->off);
    b->len -= b->off;
    b->off = 0;
  }
  if (b->len + extra > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + extra) {
      cap *= 2;
    }
    char *q = realloc(b->p, cap);
    if (q == NULL) {
      out_of_memory();
    }
    b->p = q;
    b->cap = cap;
  }
}

static void buf_add(buf_t *b, const void *data, size_t n) {
  buf_reserve(b, n);
  memcpy(b->p + b->len, data, n);
  b->len += n;
}

static void buf_adds(buf_t *b, const char *s) { buf_add(b, s, strlen(s)); }

static void buf_addc(buf_t *b, char c) { buf_add(b, &c, 1); }

static void buf_drop(buf_t *b, size_t n) {
  b->off += n;
  if (b->off == b->len) {
    b->off = b->len = 0;
    buf_shrink(b);
  }
}

static void buf_clear(buf_t *b) {
  b->off = b->len = 0;
  buf_shrink(b);
}

/* A NUL-terminated copy of the content. */
static char *buf_cstr(const buf_t *b) {
  char *s = malloc(buf_size(b) + 1);
  if (s == NULL) {
    out_of_memory();
  }
  memcpy(s, buf_data(b), buf_size(b));
  s[buf_size(b)] = '\0';
  return s;
}

static char *dup_str(const char *s) {
  char *d = strdup(s);
  if (d == NULL) {
    out_of_memory();
  }
  return d;
}

/* ---- JSON: quoting, and a peek at a message's top-level members --------------------------- */

/*
 * s as a JSON string literal, escaped exactly as Jackson's JsonStringEncoder escapes it (the
 * daemon's writer): '"' and '\\', \b \t \n \f \r, other control characters as \u00XX; every
 * other byte as it is.
 */
static void json_quote(buf_t *out, const char *s, size_t n) {
  static const char hex[] = "0123456789ABCDEF";
  buf_addc(out, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    switch (c) {
      case '"': buf_adds(out, "\\\""); break;
      case '\\': buf_adds(out, "\\\\"); break;
      case '\b': buf_adds(out, "\\b"); break;
      case '\t': buf_adds(out, "\\t"); break;
      case '\n': buf_adds(out, "\\n"); break;
      case '\f': buf_adds(out, "\\f"); break;
      case '\r': buf_adds(out, "\\r"); break;
      default:
        if (c < 0x20) {
          char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
          buf_add(out, e, 6);
        } else {
          buf_addc(out, (char)c);
        }
    }
  }
  buf_addc(out, '"');
}

typedef struct {
  const char *p, *end;
} cursor_t;

static void json_ws(cursor_t *c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) {
    c->p++;
  }
}

static int hex_value(char h) {
  if (h >= '0' && h <= '9') return h - '0';
  if (h >= 'a' && h <= 'f') return h - 'a' + 10;
  if (h >= 'A' && h <= 'F') return h - 'A' + 10;
  return -1;
}

static int read_u16(const char *p, const char *end, unsigned *v) {
  if (end - p < 4) {
    return 0;
  }
  *v = 0;
  for (int i = 0; i < 4; i++) {
    int h = hex_value(p[i]);
    if (h < 0) {
      return 0;
    }
    *v = *v << 4 | (unsigned)h;
  }
  return 1;
}

static void add_utf8(buf_t *out, unsigned cp) {
  char u[4];
  size_t n;
  if (cp < 0x80) {
    u[0] = (char)cp;
    n = 1;
  } else if (cp < 0x800) {
    u[0] = (char)(0xC0 | cp >> 6);
    u[1] = (char)(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    u[0] = (char)(0xE0 | cp >> 12);
    u[1] = (char)(0x80 | (cp >> 6 & 0x3F));
    u[2] = (char)(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    u[0] = (char)(0xF0 | cp >> 18);
    u[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    u[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    u[3] = (char)(0x80 | (cp & 0x3F));
    n = 4;
  }
  buf_add(out, u, n);
}

/* Reads the string at c->p (its opening quote), decoding it into out when out is not NULL. */
static int json_string(cursor_t *c, buf_t *out) {
  if (c->p >= c->end || *c->p != '"') {
    return 0;
  }
  c->p++;
  while (c->p < c->end) {
    const char *run = c->p;
    while (c->p < c->end && *c->p != '"' && *c->p != '\\' && (unsigned char)*c->p >= 0x20) {
      c->p++;
    }
    if (out != NULL && c->p > run) {
      buf_add(out, run, (size_t)(c->p - run));
    }
    if (c->p >= c->end || (unsigned char)*c->p < 0x20) {
      return 0;
    }
    if (*c->p == '"') {
      c->p++;
      return 1;
    }
    c->p++; /* the backslash */
    if (c->p >= c->end) {
      return 0;
    }
    char e = *c->p++;
    unsigned cp;
    switch (e) {
      case '"': cp = '"'; break;
      case '\\': cp = '\\'; break;
      case '/': cp = '/'; break;
      case 'b': cp = '\b'; break;
      case 'f': cp = '\f'; break;
      case 'n': cp = '\n'; break;
      case 'r': cp = '\r'; break;
      case 't': cp = '\t'; break;
      case 'u':
        if (!read_u16(c->p, c->end, &cp)) {
          return 0;
        }
        c->p += 4;
        if (cp >= 0xD800 && cp < 0xDC00 && c->end - c->p >= 6 && c->p[0] == '\\' && c->p[1] == 'u') {
          unsigned low;
          if (read_u16(c->p + 2, c->end, &low) && low >= 0xDC00 && low < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            c->p += 6;
          }
        }
        break;
      default:
        return 0;
    }
    if (out != NULL) {
      add_utf8(out, cp);
    }
  }
  return 0;
}

/* Value kinds json_value tells apart. */
enum { V_BAD, V_STRING, V_NUMBER, V_INTEGER, V_LITERAL, V_NULL, V_CONTAINER };

/* Skips one value; its kind, V_BAD when it is not JSON. Nested values are skipped leniently. */
static int json_value(cursor_t *c) {
  json_ws(c);
  if (c->p >= c->end) {
    return V_BAD;
  }
  char ch = *c->p;
  if (ch == '"') {
    return json_string(c, NULL) ? V_STRING : V_BAD;
  }
  if (ch == '{' || ch == '[') {
    int depth = 0;
    while (c->p < c->end) {
      char d = *c->p;
      if (d == '"') {
        if (!json_string(c, NULL)) {
          return V_BAD;
        }
        continue;
      }
      c->p++;
      if (d == '{' || d == '[') {
        depth++;
      } else if (d == '}' || d == ']') {
        if (--depth == 0) {
          return V_CONTAINER;
        }
      }
    }
    return V_BAD;
  }
  if (ch == '-' || (ch >= '0' && ch <= '9')) {
    int integer = 1;
    c->p++;
    while (c->p < c->end) {
      char d = *c->p;
      if (d == '.' || d == 'e' || d == 'E' || d == '+' || (d == '-' && c->p[-1] != '-')) {
        integer = 0;
      } else if (!(d >= '0' && d <= '9')) {
        break;
      }
      c->p++;
    }
    if (c->p[-1] == '-') {
      return V_BAD;
    }
    return integer ? V_INTEGER : V_NUMBER;
  }
  static const char *const literals[] = {"true", "false", "null"};
  for (int i = 0; i < 3; i++) {
    size_t n = strlen(literals[i]);
    if ((size_t)(c->end - c->p) >= n && memcmp(c->p, literals[i], n) == 0) {
      c->p += n;
      return i == 2 ? V_NULL : V_LITERAL;
    }
  }
  return V_BAD;
}

/* What the shim reads of one line (ShimJson.Peek, and a little more). */
typedef struct {
  int object;       /* the line is a JSON object */
  char *id;         /* the "id" as JSON text (string ids quoted as the daemon quotes them); NULL when absent */
  char *method;     /* the "method" when a string */
  int result;       /* a "result" member is present */
  int cotenant;     /* a "cotenant" member is present: the line is the daemon's own, never JSON-RPC */
  char *kind;       /* the "cotenant" member when a string */
  char *placement;  /* the "placement" member of a "placed" notice when a string */
  char *error;      /* the "error" member when a string */
  char *reason;     /* the "reason" member when a string */
  long long pid;    /* the "daemon_pid" member when an integer, else -1 */
} peek_t;

static void peek_free(peek_t *m) {
  free(m->id);
  free(m->method);
  free(m->kind);
  free(m->error);
  free(m->reason);
  free(m->placement);
  memset(m, 0, sizeof *m);
  m->pid = -1;
}

static void set_string(char **slot, const buf_t *decoded) {
  free(*slot);
  *slot = buf_cstr(decoded);
}

/* Peeks at a line's top-level members; m->object is 0 when the line is not a JSON object. */
static void peek(const char *line, size_t n, peek_t *m) {
  static buf_t key, text;
  memset(m, 0, sizeof *m);
  m->pid = -1;
  cursor_t c = {line, line + n};
  json_ws(&c);
  if (c.p >= c.end || *c.p != '{') {
    return;
  }
  c.p++;
  json_ws(&c);
  if (c.p < c.end && *c.p == '}') {
    m->object = 1;
    return;
  }
  while (1) {
    json_ws(&c);
    buf_clear(&key);
    if (!json_string(&c, &key)) {
      break;
    }
    json_ws(&c);
    if (c.p >= c.end || *c.p != ':') {
      break;
    }
    c.p++;
    json_ws(&c);
    const char *start = c.p;
    size_t klen = buf_size(&key);
    const char *k = buf_data(&key);
#define KEY_IS(s) (klen == sizeof(s) - 1 && memcmp(k, s, klen) == 0)
    int wanted = KEY_IS("id") || KEY_IS("method") || KEY_IS("cotenant") || KEY_IS("error") || KEY_IS("reason")
        || KEY_IS("placement");
    int kind;
    if (wanted && c.p < c.end && *c.p == '"') {
      buf_clear(&text);
      kind = json_string(&c, &text) ? V_STRING : V_BAD;
    } else {
      kind = json_value(&c);
    }
    if (kind == V_BAD) {
      break;
    }
    if (KEY_IS("id")) {
      free(m->id);
      m->id = NULL;
      if (kind == V_STRING) {
        buf_t q = {0};
        json_quote(&q, buf_data(&text), buf_size(&text));
        m->id = buf_cstr(&q);
        free(q.p);
      } else if (kind == V_INTEGER || kind == V_NUMBER || kind == V_NULL) {
        size_t len = (size_t)(c.p - start);
        m->id = malloc(len + 1);
        if (m->id == NULL) {
          out_of_memory();
        }
        memcpy(m->id, start, len);
        m->id[len] = '\0';
      }
    } else if (KEY_IS("method")) {
      if (kind == V_STRING) {
        set_string(&m->method, &text);
      }
    } else if (KEY_IS("result")) {
      m->result = 1;
    } else if (KEY_IS("cotenant")) {
      m->cotenant = 1;
      if (kind == V_STRING) {
        set_string(&m->kind, &text);
      }
    } else if (KEY_IS("error")) {
      if (kind == V_STRING) {
        set_string(&m->error, &text);
      }
    } else if (KEY_IS("placement")) {
      if (kind == V_STRING) {
        set_string(&m->placement, &text);
      }
    } else if (KEY_IS("reason")) {
      if (kind == V_STRING) {
        set_string(&m->reason, &text);
      }
    } else if (KEY_IS("daemon_pid")) {
      if (kind == V_INTEGER) {
        m->pid = strtoll(start, NULL, 10);
      }
    }
#undef KEY_IS
    json_ws(&c);
    if (c.p < c.end && *c.p == ',') {
      c.p++;
      continue;
    }
    if (c.p < c.end && *c.p == '}') {
      m->object = 1;
    }
    break;
  }
  buf_shrink(&key);
  buf_shrink(&text);
  if (!m->object) {
    peek_free(m);
  }
}

/* ---- the shim's state --------------------------------------------------------------------- */

static const char *g_name = "";
static char *g_home;
static char *g_socket;
static const char *g_java;
static const char *g_jar;
static int g_no_start;
static char **g_serve_args; /* --records-dir DIR and --set KEY=VALUE, as given */
static int g_serve_count;
static char **g_configs; /* absolute, normalized */
static int g_config_count;

enum { ST_HELLO, ST_RELAY, ST_STARTING, ST_RETRY };
static int g_state;
static int g_sock = -1;
static int g_sock_shut;      /* our half of the socket is shut (the client closed its input) */
static int g_sock_write_dead; /* the daemon closed its reading half: what we write is dropped */
static buf_t g_hello;        /* the hello, not written yet */
static buf_t g_sock_in;      /* what the daemon sent, not a whole line yet */
static buf_t g_sock_out;     /* the client's lines for the daemon, not written yet */
static buf_t g_stdin_in;     /* what the client sent, not a whole line yet */
static buf_t g_out;          /* lines for the client, not written yet */
static size_t g_sock_scan, g_stdin_scan;
static int g_stdin_open = 1;
static int g_read_client;    /* whether the client's input is read in this phase */
static size_t g_stdout_chunk = READ_CHUNK;
static long long g_daemon_pid = -1;
static long long g_hello_deadline;
static long long g_resume_deadline;
static long long g_retry_at;
static int g_resuming;
static pid_t g_child = -1;
static int g_started; /* a daemon was started for this connection attempt */

/* The client's requests not answered yet, by their id's JSON text, in the order sent. */
static char **g_pending;
static size_t g_pending_count, g_pending_cap;

/* The client's initialize request as it sent it, its id, and whether the daemon answered it with a result. */
static char *g_init;
static size_t g_init_len;
static char *g_init_id;
static int g_initialized;

/* False once the daemon said the session is on a backend of its own (a "placed" notice). */
static int g_resumable = 1;
/* The reason of the daemon's stopping notice, once one arrived. */
static char *g_stopping;

static long long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void pending_add(const char *id) {
  for (size_t i = 0; i < g_pending_count; i++) {
    if (strcmp(g_pending[i], id) == 0) {
      return;
    }
  }
  if (g_pending_count == g_pending_cap) {
    size_t cap = g_pending_cap ? g_pending_cap * 2 : 16;
    char **q = realloc(g_pending, cap * sizeof *q);
    if (q == NULL) {
      out_of_memory();
    }
    g_pending = q;
    g_pending_cap = cap;
  }
  g_pending[g_pending_count++] = dup_str(id);
}

static void pending_remove(const char *id) {
  for (size_t i = 0; i < g_pending_count; i++) {
    if (strcmp(g_pending[i], id) == 0) {
      free(g_pending[i]);
      memmove(g_pending + i, g_pending + i + 1, (g_pending_count - i - 1) * sizeof *g_pending);
      g_pending_count--;
      return;
    }
  }
}

/* Answers every unanswered request with "call interrupted: WHY" (-32005), and forgets them. */
static void answer_pending(const char *why) {
  for (size_t i = 0; i < g_pending_count; i++) {
    buf_adds(&g_out, "{\"jsonrpc\":\"2.0\",\"id\":");
    buf_adds(&g_out, g_pending[i]);
    char code[48];
    snprintf(code, sizeof code, ",\"error\":{\"code\":%d,\"message\":", INTERRUPTED);
    buf_adds(&g_out, code);
    buf_t m = {0};
    buf_adds(&m, "call interrupted: ");
    buf_adds(&m, why);
    json_quote(&g_out, buf_data(&m), buf_size(&m));
    free(m.p);
    buf_adds(&g_out, "}}\n");
    free(g_pending[i]);
  }
  g_pending_count = 0;
}

/* Writes what is left for the client, waiting at most 10 s without progress, then exits. */
static void finish(int status) {
  while (buf_size(&g_out) > 0) {
    struct pollfd p = {1, POLLOUT, 0};
    int r = poll(&p, 1, 10000);
    if (r < 0 && errno == EINTR) {
      continue;
    }
    if (r <= 0 || (p.revents & (POLLERR | POLLNVAL))) {
      break;
    }
    size_t n = buf_size(&g_out) < g_stdout_chunk ? buf_size(&g_out) : g_stdout_chunk;
    ssize_t w = write(1, buf_data(&g_out), n);
    if (w < 0 && errno == EINTR) {
      continue;
    }
    if (w <= 0) {
      break;
    }
    buf_drop(&g_out, (size_t)w);
  }
  exit(status);
}

/* One line for people on standard error, "cotenant connect NAME: WHY", then the exit. */
static void fail(int status, const char *fmt, ...) {
  char msg[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (g_resuming) {
    /* Requests the client sent while the shim tried to resume: no daemon will answer them. */
    answer_pending(msg);
  }
  fprintf(stderr, "cotenant connect %s: %s\n", g_name, msg);
  fflush(stderr);
  finish(status);
}

/* ---- the Cotenant home (CotenantHome.resolve, RecordsDirectory.resolve) -------------------- */

/* An absolute path normalized as java.nio's Path.normalize does: no ".", "..", empty names. */
static char *normalize(const char *path) {
  size_t n = strlen(path);
  char *copy = dup_str(path);
  char *out = malloc(n + 2);
  if (out == NULL) {
    out_of_memory();
  }
  size_t len = 0;
  char *save = NULL;
  for (char *name = strtok_r(copy, "/", &save); name != NULL; name = strtok_r(NULL, "/", &save)) {
    if (strcmp(name, ".") == 0) {
      continue;
    }
    if (strcmp(name, "..") == 0) {
      while (len > 0 && out[len - 1] != '/') {
        len--;
      }
      if (len > 0) {
        len--;
      }
      continue;
    }
    out[len++] = '/';
    memcpy(out + len, name, strlen(name));
    len += strlen(name);
  }
  if (len == 0) {
    out[len++] = '/';
  }
  out[len] = '\0';
  free(copy);
  return out;
}

static char *join(const char *a, const char *b) {
  size_t n = strlen(a) + strlen(b) + 2;
  char *s = malloc(n);
  if (s == NULL) {
    out_of_memory();
  }
  snprintf(s, n, "%s/%s", a, b);
  return s;
}

static char *cwd(void) {
  char *d = getcwd(NULL, 0);
  if (d == NULL) {
    fail(EXIT_USAGE, "cannot read the working directory: %s", strerror(errno));
  }
  return d;
}

/* path made absolute against the working directory, then normalized. */
static char *absolute(const char *path) {
  if (path[0] == '/') {
    return normalize(path);
  }
  char *d = cwd();
  char *j = join(d, path);
  char *r = normalize(j);
  free(d);
  free(j);
  return r;
}

/*
 * The user's home directory as Java's user.home has it on Linux: the password database's entry
 * of this user; $HOME when there is none.
 */
static char *user_home(void) {
  struct passwd *pw = getpwuid(getuid());
  if (pw != NULL && pw->pw_dir != NULL && pw->pw_dir[0] != '\0') {
    return absolute(pw->pw_dir);
  }
  const char *h = getenv("HOME");
  if (h != NULL && h[0] != '\0') {
    return absolute(h);
  }
  fail(EXIT_USAGE, "cannot tell this user's home directory (no password entry, no HOME): set COTENANT_HOME");
  return NULL;
}

/* Whether c is a character Java's String.strip removes (the ASCII ones of Character.isWhitespace). */
static int java_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == '\f' || c == '\r' || (c >= 0x1C && c <= 0x1F);
}

static char *strip(const char *s) {
  while (*s != '\0' && java_space(*s)) {
    s++;
  }
  size_t n = strlen(s);
  while (n > 0 && java_space(s[n - 1])) {
    n--;
  }
  char *r = dup_str(s);
  r[n] = '\0';
  return r;
}

/*
 * The home a value names (COTENANT_HOME, --home): NULL when it counts as unset (empty, ".",
 * "./"); "~" and "~/..." are under the user's home; anything else must be absolute.
 */
static char *home_from(const char *value, const char *what) {
  char *v = strip(value);
  if (v[0] == '\0' || strcmp(v, ".") == 0 || strcmp(v, "./") == 0) {
    free(v);
    return NULL;
  }
  char *r;
  if (strcmp(v, "~") == 0) {
    r = user_home();
  } else if (strncmp(v, "~/", 2) == 0) {
    char *h = user_home();
    char *j = join(h, v + 2);
    r = normalize(j);
    free(h);
    free(j);
  } else if (v[0] == '/') {
    r = normalize(v);
  } else {
    fail(EXIT_USAGE, "%s '%s' is a relative path; give an absolute path (or one starting with ~/)", what, value);
    return NULL;
  }
  free(v);
  return r;
}

static char *resolve_home(const char *option) {
  if (option != NULL) {
    char *h = home_from(option, "--home");
    if (h == NULL) {
      fail(EXIT_USAGE, "--home '%s' names no directory; give an absolute path", option);
    }
    return h;
  }
  const char *env = getenv("COTENANT_HOME");
  char *h = env != NULL ? home_from(env, "COTENANT_HOME") : NULL;
  if (h != NULL) {
    return h;
  }
  char *u = user_home();
  char *j = join(u, ".cotenant");
  h = normalize(j);
  free(u);
  free(j);
  return h;
}

/* ---- reaching the daemon ------------------------------------------------------------------- */

enum { C_OK, C_ABSENT, C_BUSY, C_FAILED };

static char g_why[4096];

static const char *user_name(uid_t uid, char *into, size_t n) {
  struct passwd *pw = getpwuid(uid);
  if (pw != NULL && pw->pw_name != NULL) {
    snprintf(into, n, "%s", pw->pw_name);
  } else {
    snprintf(into, n, "%lu", (unsigned long)uid);
  }
  return into;
}

/*
 * Refuses a listener that is not this user's own before a byte is sent to it
 * (DaemonStarter.checkPeer): the peer's user (SO_PEERCRED) must be the user running this; where
 * there are no peer credentials, the socket file's owner is checked instead.
 */
static int check_peer(int fd) {
  uid_t peer;
  struct ucred cred;
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && len == sizeof cred) {
    peer = cred.uid;
  } else {
    struct stat st;
    if (lstat(g_socket, &st) != 0) {
      snprintf(g_why, sizeof g_why, "cannot reach the daemon at %s: its owner cannot be read (%s)", g_socket,
          strerror(errno));
      return 0;
    }
    peer = st.st_uid;
  }
  if (peer != getuid()) {
    char a[256], b[256];
    snprintf(g_why, sizeof g_why,
        "refusing the daemon at %s: it is run by %s, not by %s; a socket of another user's is never spoken to"
        " (check who can write to %s)", g_socket, user_name(peer, a, sizeof a), user_name(getuid(), b, sizeof b), g_home);
    return 0;
  }
  return 1;
}

/* Connects to the daemon's socket (DaemonStarter.tryConnect); g_why says why not when C_FAILED. */
static int try_connect(int *fd_out) {
  struct stat st;
  if (lstat(g_socket, &st) != 0) {
    return C_ABSENT;
  }
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  if (strlen(g_socket) >= sizeof addr.sun_path) {
    snprintf(g_why, sizeof g_why, "cannot reach the daemon at %s: the path is %zu bytes long; a Unix socket's limit is %zu",
        g_socket, strlen(g_socket), sizeof addr.sun_path - 1);
    return C_FAILED;
  }
  memcpy(addr.sun_path, g_socket, strlen(g_socket));
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    snprintf(g_why, sizeof g_why, "cannot reach the daemon at %s: %s", g_socket, strerror(errno));
    return C_FAILED;
  }
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
    int e = errno;
    close(fd);
    if (e == ECONNREFUSED || e == ENOENT) {
      return C_ABSENT;
    }
    if (e == EAGAIN) {
      return C_BUSY; /* its backlog is full: a stopped or hung daemon */
    }
    if (e == EACCES || e == EPERM) {
      snprintf(g_why, sizeof g_why,
          "cannot reach the daemon at %s: permission denied (the socket belongs to another user)", g_socket);
    } else {
      snprintf(g_why, sizeof g_why, "cannot reach the daemon at %s: %s", g_socket, strerror(e));
    }
    return C_FAILED;
  }
  if (!check_peer(fd)) {
    close(fd);
    return C_FAILED;
  }
  *fd_out = fd;
  return C_OK;
}

/* Runs JAVA -jar JAR connect NAME --start-only ...: the JVM takes the start lock and starts the daemon. */
static void spawn_starter(void) {
  int argc = 0;
  const char **argv = calloc((size_t)g_serve_count + 16, sizeof *argv);
  if (argv == NULL) {
    out_of_memory();
  }
  argv[argc++] = g_java;
  argv[argc++] = "-XX:TieredStopAtLevel=1";
  argv[argc++] = "-XX:+UseSerialGC";
  argv[argc++] = "-XX:-UsePerfData";
  argv[argc++] = "-jar";
  argv[argc++] = g_jar;
  argv[argc++] = "connect";
  argv[argc++] = g_name;
  argv[argc++] = "--start-only";
  for (int i = 0; i < g_serve_count; i++) {
    argv[argc++] = g_serve_args[i];
  }
  argv[argc] = NULL;
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    fail(EXIT_DAEMON, "cannot start the daemon: %s", strerror(errno));
  }
  if (pid == 0) {
    /* The client's output carries MCP messages only: the starter writes to standard error. */
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) {
      dup2(devnull, 0);
      close(devnull);
    }
    dup2(2, 1);
    signal(SIGPIPE, SIG_DFL);
    setenv("COTENANT_HOME", g_home, 1);
    execvp(g_java, (char *const *)argv);
    fprintf(stderr, "cotenant connect %s: cannot start the daemon: cannot run %s: %s\n", g_name, g_java, strerror(errno));
    _exit(EXIT_DAEMON);
  }
  free(argv);
  g_child = pid;
  g_started = 1;
  g_state = ST_STARTING;
}

static void send_hello(int fd) {
  g_sock = fd;
  g_sock_shut = 0;
  g_sock_write_dead = 0;
  buf_clear(&g_sock_in);
  g_sock_scan = 0;
  buf_clear(&g_hello);
  char head[64];
  snprintf(head, sizeof head, "{\"cotenant\":\"connect\",\"version\":%d,\"server\":", PROTOCOL_VERSION);
  buf_adds(&g_hello, head);
  json_quote(&g_hello, g_name, strlen(g_name));
  buf_adds(&g_hello, ",\"configs\":[");
  for (int i = 0; i < g_config_count; i++) {
    if (i > 0) {
      buf_addc(&g_hello, ',');
    }
    json_quote(&g_hello, g_configs[i], strlen(g_configs[i]));
  }
  buf_addc(&g_hello, ']');
  /* The shim's own pid: the daemon counts what its shims cost. */
  char pid[32];
  snprintf(pid, sizeof pid, ",\"pid\":%ld", (long)getpid());
  buf_adds(&g_hello, pid);
  if (g_resuming) {
    buf_adds(&g_hello, ",\"resume\":");
    buf_add(&g_hello, g_init, g_init_len);
  }
  buf_adds(&g_hello, "}\n");
  g_state = ST_HELLO;
  g_hello_deadline = now_ms() + HELLO_TIMEOUT_MS;
}

static void no_daemon(void) {
  if (g_no_start) {
    fail(EXIT_DAEMON, "no daemon runs for %s (start one: cotenant serve)", g_home);
  }
  fail(EXIT_DAEMON, "no daemon runs for %s, and this shim was given no --java and --jar to start one with"
      " (start one: cotenant serve)", g_home);
}

/* One attempt to reach a daemon: connected (the hello goes out), starting one, retrying, or failed. */
static void reach_daemon(void) {
  int fd;
  switch (try_connect(&fd)) {
    case C_OK:
      send_hello(fd);
      return;
    case C_BUSY:
      if (g_hello_deadline == 0) {
        g_hello_deadline = now_ms() + HELLO_TIMEOUT_MS;
      }
      g_state = ST_RETRY;
      g_retry_at = now_ms() + 100;
      return;
    case C_FAILED:
      fail(EXIT_DAEMON, "%s", g_why);
      return;
    default:
      break;
  }
  int can_start = !g_no_start && g_java != NULL && g_jar != NULL;
  if (g_resuming && now_ms() < g_resume_deadline && (!can_start || g_started)) {
    /* Another shim, or whoever runs the daemon, may be starting one: look again shortly. */
    g_state = ST_RETRY;
    g_retry_at = now_ms() + 250;
    g_started = 0;
    return;
  }
  if (!can_start) {
    no_daemon();
  }
  if (g_started) {
    fail(EXIT_DAEMON, "the daemon it started does not answer on %s (see %s/daemon.log)", g_socket, g_home);
  }
  spawn_starter();
}

/* ---- relaying ------------------------------------------------------------------------------- */

/* Resume after the daemon went away: the client's initialize goes along with the next hello. */
static void begin_resume(void) {
  g_resuming = 1;
  g_resume_deadline = now_ms() + RESUME_MS;
  g_hello_deadline = 0;
  g_started = 0;
  g_read_client = 1;
  reach_daemon();
}

/* The daemon's side of the session ended (why: the read error, NULL at its end). */
static void daemon_gone(const char *why) {
  close(g_sock);
  g_sock = -1;
  buf_clear(&g_sock_in);
  g_sock_scan = 0;
  if (g_state == ST_HELLO && g_resuming && now_ms() < g_resume_deadline) {
    /*
     * A daemon that is still exiting: its main thread is a zombie while its other threads still
     * hold the socket, which took the connection and then dropped it. Look again shortly; what
     * the client sent meanwhile stays held.
     */
    g_state = ST_RETRY;
    g_retry_at = now_ms() + 250;
    return;
  }
  if (g_state == ST_HELLO) {
    if (why != NULL) {
      fail(EXIT_DAEMON, "the daemon closed the connection before answering (%s)", why);
    }
    fail(EXIT_DAEMON, "the daemon closed the connection before answering");
  }
  buf_clear(&g_sock_out);
  if (!g_stdin_open) {
    finish(EXIT_CLIENT_CLOSED);
  }
  char reason[1024];
  if (g_stopping != NULL) {
    snprintf(reason, sizeof reason, "the daemon (pid %lld) stopped: %s", g_daemon_pid, g_stopping);
    answer_pending(reason);
    fail(EXIT_DAEMON, "%s", reason);
  }
  /* Whether the daemon still runs once its connection has closed (Shim.stillRunning). */
  int alive = 0;
  if (g_daemon_pid > 0) {
    long long deadline = now_ms() + 500;
    while (1) {
      int running = kill((pid_t)g_daemon_pid, 0) == 0 || errno == EPERM;
      if (running) {
        char path[64], stat[512];
        snprintf(path, sizeof path, "/proc/%lld/stat", g_daemon_pid);
        FILE *f = fopen(path, "r");
        if (f != NULL) {
          size_t n = fread(stat, 1, sizeof stat - 1, f);
          fclose(f);
          stat[n] = '\0';
          char *close_paren = strrchr(stat, ')');
          if (close_paren != NULL && close_paren[1] == ' ' && (close_paren[2] == 'Z' || close_paren[2] == 'X')) {
            running = 0;
          }
        } else if (errno == ENOENT) {
          running = 0;
        }
      }
      if (!running) {
        break;
      }
      if (now_ms() > deadline) {
        alive = 1;
        break;
      }
      struct timespec t = {0, 20 * 1000000L};
      nanosleep(&t, NULL);
    }
  }
  if (alive) {
    snprintf(reason, sizeof reason, "the daemon (pid %lld) ended %s's session", g_daemon_pid, g_name);
  } else {
    snprintf(reason, sizeof reason, "the daemon (pid %lld) went away", g_daemon_pid);
  }
  answer_pending(reason);
  if (!alive && g_initialized && g_init != NULL && g_resumable) {
    begin_resume();
    return;
  }
  if (!alive && !g_resumable) {
    fail(EXIT_DAEMON, "%s; %s's backend was its own, and its state ended with it: restart %s in the client", reason,
        g_name, g_name);
  }
  if (why != NULL) {
    fail(EXIT_DAEMON, "%s (%s)", reason, why);
  }
  fail(EXIT_DAEMON, "%s", reason);
}

/* One line from the client (without its newline): noted, then queued for the daemon. */
static void client_line(const char *line, size_t n) {
  if (n == 0 || (n == 1 && line[0] == '\r')) {
    return;
  }
  peek_t m;
  peek(line, n, &m);
  if (m.object && m.id != NULL && m.method != NULL) {
    pending_add(m.id);
    if (strcmp(m.method, "initialize") == 0) {
      size_t len = n;
      while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t')) {
        len--;
      }
      free(g_init);
      g_init = malloc(len);
      if (g_init == NULL) {
        out_of_memory();
      }
      memcpy(g_init, line, len);
      g_init_len = len;
      free(g_init_id);
      g_init_id = dup_str(m.id);
      g_initialized = 0;
    }
  }
  peek_free(&m);
  if (!g_sock_write_dead) {
    buf_add(&g_sock_out, line, n);
    buf_addc(&g_sock_out, '\n');
  }
}

/* The daemon's answer to the hello. */
static void hello_answer(const char *line, size_t n) {
  peek_t m;
  peek(line, n, &m);
  if (!m.object || m.kind == NULL || strcmp(m.kind, "connected") != 0) {
    char why[4096];
    snprintf(why, sizeof why, "%s", m.object && m.error != NULL ? m.error : "the daemon refused the session");
    peek_free(&m);
    fail(EXIT_DAEMON, "%s", why);
  }
  g_daemon_pid = m.pid;
  peek_free(&m);
  g_state = ST_RELAY;
  g_resuming = 0;
  g_read_client = 1;
  g_hello_deadline = 0;
  free(g_stopping);
  g_stopping = NULL;
}

/* One line from the daemon (trimmed, not blank): the daemon's own, or a message for the client. */
static void daemon_line(const char *line, size_t n) {
  if (g_state == ST_HELLO) {
    hello_answer(line, n);
    return;
  }
  peek_t m;
  peek(line, n, &m);
  if (m.object && m.cotenant) {
    if (m.kind != NULL && strcmp(m.kind, "stopping") == 0) {
      free(g_stopping);
      g_stopping = dup_str(m.reason != NULL ? m.reason : "stopping");
    } else if (m.kind != NULL && strcmp(m.kind, "placed") == 0) {
      /* A session on a backend of its own cannot resume: its state ends with that backend. */
      g_resumable = m.placement != NULL && strcmp(m.placement, "shared") == 0;
    }
    peek_free(&m);
    return;
  }
  if (m.object && m.id != NULL && m.method == NULL) {
    pending_remove(m.id);
    if (g_init_id != NULL && strcmp(m.id, g_init_id) == 0 && m.result) {
      g_initialized = 1;
    }
  }
  peek_free(&m);
  buf_add(&g_out, line, n);
  buf_addc(&g_out, '\n');
}

/* Splits whole lines off in; 0 when a line is longer than MAX_LINE. */
static int take_lines(buf_t *in, size_t *scan, int trim, void (*each)(const char *, size_t)) {
  while (1) {
    char *start = buf_data(in);
    size_t size = buf_size(in);
    char *nl = *scan < size ? memchr(start + *scan, '\n', size - *scan) : NULL;
    if (nl == NULL) {
      *scan = size;
      return size <= MAX_LINE;
    }
    size_t n = (size_t)(nl - start);
    if (n > MAX_LINE) {
      return 0;
    }
    size_t used = n + 1;
    if (trim) {
      while (n > 0 && (start[n - 1] == '\r' || start[n - 1] == ' ' || start[n - 1] == '\t')) {
        n--;
      }
    }
    *scan = 0;
    if (!trim || n > 0) {
      /* The handler may queue output, never touch in. */
      each(start, n);
    }
    buf_drop(in, used);
    if (g_sock < 0 && in == &g_sock_in) {
      return 1;
    }
  }
}

static void client_too_long(void) {
  fail(EXIT_DAEMON, "the client sent a message longer than %zu bytes; the session was ended", MAX_LINE);
}

static void read_client(void) {
  buf_reserve(&g_stdin_in, READ_CHUNK);
  ssize_t r = read(0, g_stdin_in.p + g_stdin_in.len, READ_CHUNK);
  if (r < 0 && (errno == EINTR || errno == EAGAIN)) {
    return;
  }
  if (r > 0) {
    g_stdin_in.len += (size_t)r;
    if (!take_lines(&g_stdin_in, &g_stdin_scan, 0, client_line)) {
      client_too_long();
    }
    return;
  }
  /* The end of the client's input (or an error reading it): a last line without a newline counts. */
  g_stdin_open = 0;
  if (buf_size(&g_stdin_in) > 0) {
    client_line(buf_data(&g_stdin_in), buf_size(&g_stdin_in));
    buf_clear(&g_stdin_in);
  }
  if (g_state != ST_RELAY) {
    finish(EXIT_CLIENT_CLOSED);
  }
}

static void read_daemon(void) {
  buf_reserve(&g_sock_in, READ_CHUNK);
  ssize_t r = read(g_sock, g_sock_in.p + g_sock_in.len, READ_CHUNK);
  if (r < 0 && (errno == EINTR || errno == EAGAIN)) {
    return;
  }
  if (r < 0) {
    daemon_gone(strerror(errno));
    return;
  }
  if (r == 0) {
    if (buf_size(&g_sock_in) > 0) {
      buf_addc(&g_sock_in, '\n');
      take_lines(&g_sock_in, &g_sock_scan, 1, daemon_line);
    }
    if (g_sock >= 0) {
      daemon_gone(NULL);
    }
    return;
  }
  g_sock_in.len += (size_t)r;
  if (!take_lines(&g_sock_in, &g_sock_scan, 1, daemon_line)) {
    char why[96];
    snprintf(why, sizeof why, "a message longer than %zu bytes", MAX_LINE);
    daemon_gone(why);
  }
}

static void write_daemon(buf_t *b) {
  ssize_t w = send(g_sock, buf_data(b), buf_size(b), MSG_NOSIGNAL);
  if (w < 0 && (errno == EINTR || errno == EAGAIN)) {
    return;
  }
  if (w < 0) {
    /* The daemon closed its side: what it still sends is read to its end, where it is reported. */
    g_sock_write_dead = 1;
    buf_clear(b);
    return;
  }
  buf_drop(b, (size_t)w);
}

static void write_client(void) {
  size_t n = buf_size(&g_out) < g_stdout_chunk ? buf_size(&g_out) : g_stdout_chunk;
  ssize_t w = write(1, buf_data(&g_out), n);
  if (w < 0 && (errno == EINTR || errno == EAGAIN)) {
    return;
  }
  if (w < 0) {
    /* The client no longer reads: it is gone, and so is its session. */
    buf_clear(&g_out);
    exit(EXIT_CLIENT_CLOSED);
  }
  buf_drop(&g_out, (size_t)w);
}

static void relay(void) {
  while (1) {
    struct pollfd fds[3];
    int n = 0, in = -1, sock = -1, out = -1;
    if (g_read_client && g_stdin_open && buf_size(&g_sock_out) < HIGH_WATER) {
      in = n;
      fds[n++] = (struct pollfd){0, POLLIN, 0};
    }
    if (g_sock >= 0) {
      /* The hello's answer is always read; the session's lines only while the client keeps up. */
      short ev = g_state == ST_HELLO || buf_size(&g_out) < HIGH_WATER ? POLLIN : 0;
      if ((g_state == ST_HELLO && buf_size(&g_hello) > 0) || (g_state == ST_RELAY && buf_size(&g_sock_out) > 0)) {
        ev |= POLLOUT;
      }
      sock = n;
      fds[n++] = (struct pollfd){g_sock, ev, 0};
    }
    if (buf_size(&g_out) > 0) {
      out = n;
      fds[n++] = (struct pollfd){1, POLLOUT, 0};
    }
    long long now = now_ms(), timeout = -1;
    if (g_state == ST_STARTING) {
      timeout = 50;
    } else if (g_state == ST_RETRY) {
      timeout = g_retry_at > now ? g_retry_at - now : 0;
    } else if (g_state == ST_HELLO) {
      timeout = g_hello_deadline > now ? g_hello_deadline - now : 0;
    }
    int r = poll(fds, (nfds_t)n, (int)timeout);
    if (r < 0) {
      if (errno == EINTR) {
        continue;
      }
      fail(EXIT_DAEMON, "poll: %s", strerror(errno));
    }
    if (out >= 0 && fds[out].revents) {
      if (fds[out].revents & (POLLERR | POLLNVAL)) {
        exit(EXIT_CLIENT_CLOSED);
      }
      write_client();
    }
    if (sock >= 0 && g_sock >= 0 && fds[sock].revents) {
      if (fds[sock].revents & POLLOUT) {
        write_daemon(g_state == ST_HELLO ? &g_hello : &g_sock_out);
      }
      if (fds[sock].revents & (POLLIN | POLLHUP | POLLERR)) {
        read_daemon();
      }
    }
    if (in >= 0 && fds[in].revents) {
      read_client();
    }
    if (g_state == ST_RELAY && g_sock >= 0 && !g_stdin_open && !g_sock_shut && buf_size(&g_sock_out) == 0) {
      /* The client closed its input: the daemon ends the session once it has read everything. */
      shutdown(g_sock, SHUT_WR);
      g_sock_shut = 1;
    }
    now = now_ms();
    if (g_state == ST_HELLO && now >= g_hello_deadline) {
      fail(EXIT_DAEMON, "the daemon did not answer within %lld s: it may be stopped (kill -CONT its pid) or hung",
          HELLO_TIMEOUT_MS / 1000);
    } else if (g_state == ST_RETRY && now >= g_retry_at) {
      if (g_hello_deadline != 0 && now >= g_hello_deadline) {
        fail(EXIT_DAEMON, "the daemon did not answer within %lld s: it may be stopped (kill -CONT its pid) or hung",
            HELLO_TIMEOUT_MS / 1000);
      }
      reach_daemon();
    } else if (g_state == ST_STARTING) {
      int status;
      pid_t w = waitpid(g_child, &status, WNOHANG);
      if (w == g_child) {
        g_child = -1;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
          reach_daemon();
        } else if (WIFEXITED(status)) {
          /* The starter said why, in one line of its own. */
          if (g_resuming) {
            answer_pending("no daemon could be started");
          }
          finish(WEXITSTATUS(status) == EXIT_USAGE ? EXIT_USAGE : EXIT_DAEMON);
        } else {
          fail(EXIT_DAEMON, "cannot start the daemon: %s -jar %s ended by signal %d", g_java, g_jar,
              WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        }
      } else if (w < 0 && errno != EINTR) {
        fail(EXIT_DAEMON, "cannot start the daemon: %s", strerror(errno));
      }
    }
  }
}

/* ---- the command line ----------------------------------------------------------------------- */

static void usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "cotenant-shim: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\nusage: cotenant-shim [--java JAVA --jar JAR] [--home DIR] connect NAME [CONFIG...] [--no-start]"
      " [--records-dir DIR] [--set KEY=VALUE]...\n       cotenant-shim --version\n");
  exit(EXIT_USAGE);
}

int main(int argc, char **argv) {
  const char *home_option = NULL;
  int i = 1;
  for (; i < argc && strcmp(argv[i], "connect") != 0; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--version") == 0) {
      printf("cotenant-shim %s (shim protocol %d)\n", COTENANT_SHIM_VERSION, PROTOCOL_VERSION);
      return 0;
    }
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      printf("cotenant-shim: relays an MCP client's stdio session to the Cotenant daemon (see docs/daemon.md)\n"
          "usage: cotenant-shim [--java JAVA --jar JAR] [--home DIR] connect NAME [CONFIG...] [--no-start]"
          " [--records-dir DIR] [--set KEY=VALUE]...\n       cotenant-shim --version\n");
      return 0;
    }
    if ((strcmp(a, "--java") == 0 || strcmp(a, "--jar") == 0 || strcmp(a, "--home") == 0) && i + 1 < argc) {
      const char *v = argv[++i];
      if (strcmp(a, "--java") == 0) {
        g_java = v;
      } else if (strcmp(a, "--jar") == 0) {
        g_jar = v;
      } else {
        home_option = v;
      }
      continue;
    }
    usage_error("unknown option or missing value: %s", a);
  }
  if (i >= argc) {
    usage_error("%s", "no command: expected connect NAME");
  }
  g_configs = calloc((size_t)argc, sizeof *g_configs);
  g_serve_args = calloc((size_t)argc, sizeof *g_serve_args);
  if (g_configs == NULL || g_serve_args == NULL) {
    out_of_memory();
  }
  const char *name = NULL;
  for (i++; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--no-start") == 0) {
      g_no_start = 1;
    } else if ((strcmp(a, "--records-dir") == 0 || strcmp(a, "--set") == 0) && i + 1 < argc) {
      g_serve_args[g_serve_count++] = argv[i];
      g_serve_args[g_serve_count++] = argv[++i];
    } else if (a[0] == '-') {
      usage_error("unknown option or missing value: %s", a);
    } else if (name == NULL) {
      name = a;
    } else {
      g_configs[g_config_count++] = absolute(a);
    }
  }
  char *stripped = name == NULL ? NULL : strip(name);
  if (stripped == NULL || stripped[0] == '\0') {
    usage_error("%s", "NAME is missing: name a server of the configuration");
  }
  free(stripped);
  g_name = name;
  signal(SIGPIPE, SIG_IGN);
  struct stat st;
  if (fstat(1, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
    /* At most PIPE_BUF bytes after POLLOUT: a write that never blocks, so the client's input is always read. */
    g_stdout_chunk = PIPE_BUF;
  }
  g_home = resolve_home(home_option);
  g_socket = join(strcmp(g_home, "/") == 0 ? "" : g_home, "cotenant.sock");
  reach_daemon();
  relay();
  return 0;
}
