/* Exits, the pending requests, the Cotenant home, and reaching the daemon: see shim.h. */
#include "shim.h"

long long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Notes a request the client sent, unless one with the same key is pending. */
void pending_add(const char *id, const char *key) {
  for (size_t i = 0; i < g_pending_count; i++) {
    if (strcmp(g_pending[i].key, key) == 0) {
      return;
    }
  }
  if (g_pending_count == g_pending_cap) {
    size_t cap = g_pending_cap ? g_pending_cap * 2 : 16;
    pending_t *q = realloc(g_pending, cap * sizeof *q);
    if (q == NULL) {
      out_of_memory();
    }
    g_pending = q;
    g_pending_cap = cap;
  }
  g_pending[g_pending_count].id = dup_str(id);
  g_pending[g_pending_count].key = dup_str(key);
  g_pending_count++;
}

/* Forgets the request the daemon answered: the same key, however the daemon wrote the id. */
void pending_remove(const char *key) {
  for (size_t i = 0; i < g_pending_count; i++) {
    if (strcmp(g_pending[i].key, key) == 0) {
      free(g_pending[i].id);
      free(g_pending[i].key);
      memmove(g_pending + i, g_pending + i + 1, (g_pending_count - i - 1) * sizeof *g_pending);
      g_pending_count--;
      return;
    }
  }
}

/* Answers every unanswered request with "call interrupted: WHY" (-32073), and forgets them. */
void answer_pending(const char *why) {
  for (size_t i = 0; i < g_pending_count; i++) {
    buf_adds(&g_out, "{\"jsonrpc\":\"2.0\",\"id\":");
    buf_adds(&g_out, g_pending[i].id);
    char code[48];
    snprintf(code, sizeof code, ",\"error\":{\"code\":%d,\"message\":", INTERRUPTED);
    buf_adds(&g_out, code);
    buf_t m = {0};
    buf_adds(&m, "call interrupted: ");
    buf_adds(&m, why);
    json_quote(&g_out, buf_data(&m), buf_size(&m));
    free(m.p);
    buf_adds(&g_out, "}}\n");
    free(g_pending[i].id);
    free(g_pending[i].key);
  }
  g_pending_count = 0;
}

/* Writes what is left for the client, waiting at most 10 s without progress, then exits. */
void finish(int status) {
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
void fail(int status, const char *fmt, ...) {
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
char *normalize(const char *path) {
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

char *join(const char *a, const char *b) {
  size_t n = strlen(a) + strlen(b) + 2;
  char *s = malloc(n);
  if (s == NULL) {
    out_of_memory();
  }
  snprintf(s, n, "%s/%s", a, b);
  return s;
}

char *cwd(void) {
  char *d = getcwd(NULL, 0);
  if (d == NULL) {
    fail(EXIT_USAGE, "cannot read the working directory: %s", strerror(errno));
  }
  return d;
}

/* path made absolute against the working directory, then normalized. */
char *absolute(const char *path) {
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
 * The user's home directory as the Java side has it (RecordsDirectory.userHome): $HOME when it
 * is an absolute path, else the password database's entry of this user.
 */
char *user_home(void) {
  const char *h = getenv("HOME");
  if (h != NULL) {
    char *s = strip(h);
    if (s[0] == '/') {
      char *r = normalize(s);
      free(s);
      return r;
    }
    free(s);
  }
  struct passwd *pw = getpwuid(getuid());
  if (pw != NULL && pw->pw_dir != NULL && pw->pw_dir[0] != '\0') {
    return absolute(pw->pw_dir);
  }
  fail(EXIT_USAGE, "cannot tell this user's home directory (no absolute HOME, no password entry): set COTENANT_HOME");
  return NULL;
}

/* Whether c is a character Java's String.strip removes (the ASCII ones of Character.isWhitespace). */
int java_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == '\f' || c == '\r' || (c >= 0x1C && c <= 0x1F);
}

char *strip(const char *s) {
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
char *home_from(const char *value, const char *what) {
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

char *resolve_home(const char *option) {
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


char g_why[4096];

const char *user_name(uid_t uid, char *into, size_t n) {
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
int check_peer(int fd) {
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
int try_connect(int *fd_out) {
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

/*
 * Whether PATH may be run (PrivateFiles.whyUntrusted): a regular file this user owns that group and
 * others may not write, under directories owned by this user or root that group and others may not
 * write unless sticky. Writes why not into WHY.
 */
int trusted_file(const char *path, char *why, size_t n) {
  struct stat st;
  uid_t self = geteuid();
  if (lstat(path, &st) != 0) {
    snprintf(why, n, "cannot read %s: %s", path, strerror(errno));
    return 0;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(why, n, "%s is not a regular file", path);
    return 0;
  }
  if (st.st_uid != self) {
    snprintf(why, n, "%s belongs to uid %ld, not to uid %ld", path, (long)st.st_uid, (long)self);
    return 0;
  }
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    snprintf(why, n, "%s is writable by others (mode %04o)", path, (unsigned)(st.st_mode & 07777));
    return 0;
  }
  char *dir = absolute(path);
  for (char *slash = strrchr(dir, '/'); slash != NULL; slash = strrchr(dir, '/')) {
    if (slash == dir) {
      slash[1] = '\0';
    } else {
      slash[0] = '\0';
    }
    char *real = realpath(dir, NULL);
    int ok = real != NULL && stat(real, &st) == 0;
    if (!ok) {
      snprintf(why, n, "cannot read its directory %s: %s", dir, strerror(errno));
    } else if (st.st_uid != self && st.st_uid != 0) {
      snprintf(why, n, "its directory %s belongs to uid %ld, not to uid %ld or root", real, (long)st.st_uid, (long)self);
      ok = 0;
    } else if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
      snprintf(why, n, "its directory %s is writable by others (mode %04o)", real, (unsigned)(st.st_mode & 07777));
      ok = 0;
    }
    free(real);
    if (!ok || strcmp(dir, "/") == 0) {
      free(dir);
      return ok;
    }
  }
  free(dir);
  return 1;
}

/* Runs JAVA -jar JAR connect NAME --start-only ...: the JVM takes the start lock and starts the daemon. */
void spawn_starter(void) {
  char why[PATH_MAX + 128];
  if (!trusted_file(g_jar, why, sizeof why)) {
    fail(EXIT_DAEMON, "refusing to start the daemon with %s: %s (run cotenant route again to install it afresh)",
        g_jar, why);
  }
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

void send_hello(int fd) {
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

void no_daemon(void) {
  if (g_no_start) {
    fail(EXIT_DAEMON, "no daemon runs for %s (start one: cotenant serve)", g_home);
  }
  fail(EXIT_DAEMON, "no daemon runs for %s, and this shim was given no --java and --jar to start one with"
      " (start one: cotenant serve)", g_home);
}

/* One attempt to reach a daemon: connected (the hello goes out), starting one, retrying, or failed. */
void reach_daemon(void) {
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

