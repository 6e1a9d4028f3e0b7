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
#include "shim.h"

/* ---- the shim's state --------------------------------------------------------------------- */

const char *g_name = "";
char *g_home;
char *g_socket;
const char *g_java;
const char *g_jar;
int g_no_start;
char **g_serve_args; /* --records-dir DIR and --set KEY=VALUE, as given */
int g_serve_count;
char **g_configs; /* absolute, normalized */
int g_config_count;

int g_state;
int g_sock = -1;
int g_sock_shut;      /* our half of the socket is shut (the client closed its input) */
int g_sock_write_dead; /* the daemon closed its reading half: what we write is dropped */
buf_t g_hello;        /* the hello, not written yet */
buf_t g_sock_in;      /* what the daemon sent, not a whole line yet */
buf_t g_sock_out;     /* the client's lines for the daemon, not written yet */
buf_t g_stdin_in;     /* what the client sent, not a whole line yet */
buf_t g_out;          /* lines for the client, not written yet */
size_t g_sock_scan, g_stdin_scan;
int g_stdin_open = 1;
int g_read_client;    /* whether the client's input is read in this phase */
size_t g_stdout_chunk = READ_CHUNK;
long long g_daemon_pid = -1;
long long g_hello_deadline;
long long g_resume_deadline;
long long g_retry_at;
int g_resuming;
pid_t g_child = -1;
int g_started; /* a daemon was started for this connection attempt */

/* The client's requests not answered yet, by their id's JSON text, in the order sent. */
pending_t *g_pending;
size_t g_pending_count, g_pending_cap;

/* The client's initialize request as it sent it, its id, and whether the daemon answered it with a result. */
char *g_init;
size_t g_init_len;
char *g_init_id;
int g_initialized;

/* False once the daemon said the session is on a backend of its own (a "placed" notice). */
int g_resumable = 1;
/* The reason of the daemon's stopping notice, once one arrived. */
char *g_stopping;


/* ---- relaying ------------------------------------------------------------------------------- */

/* Resume after the daemon went away: the client's initialize goes along with the next hello. */
void begin_resume(void) {
  g_resuming = 1;
  g_resume_deadline = now_ms() + RESUME_MS;
  g_hello_deadline = 0;
  g_started = 0;
  g_read_client = 1;
  reach_daemon();
}

/* The daemon's side of the session ended (why: the read error, NULL at its end). */
void daemon_gone(const char *why) {
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
    /*
     * The client closed its input, and the daemon has answered the calls in flight before it
     * ended the session; any it did not answer (it went away meanwhile) are answered here.
     */
    char ended[128];
    snprintf(ended, sizeof ended, "the daemon (pid %lld) ended the session before answering it", g_daemon_pid);
    answer_pending(ended);
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
void client_line(const char *line, size_t n) {
  if (n == 0 || (n == 1 && line[0] == '\r')) {
    return;
  }
  peek_t m;
  peek(line, n, &m);
  if (m.object && m.key != NULL && m.method != NULL) {
    pending_add(m.id, m.key);
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
      g_init_id = dup_str(m.key);
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
void hello_answer(const char *line, size_t n) {
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
void daemon_line(const char *line, size_t n) {
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
  if (m.object && m.key != NULL && m.method == NULL) {
    pending_remove(m.key);
    if (g_init_id != NULL && strcmp(m.key, g_init_id) == 0 && m.result) {
      g_initialized = 1;
    }
  }
  peek_free(&m);
  buf_add(&g_out, line, n);
  buf_addc(&g_out, '\n');
}

/* Splits whole lines off in; 0 when a line is longer than MAX_LINE. */
int take_lines(buf_t *in, size_t *scan, int trim, void (*each)(const char *, size_t)) {
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

void client_too_long(void) {
  fail(EXIT_DAEMON, "the client sent a message longer than %zu bytes; the session was ended", MAX_LINE);
}

void read_client(void) {
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
    /* Between daemons (resuming): what the client asked is not sent anywhere, and is answered so. */
    answer_pending("the client closed its input while the session was resuming on a new daemon");
    finish(EXIT_CLIENT_CLOSED);
  }
}

void read_daemon(void) {
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

void write_daemon(buf_t *b) {
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

void write_client(void) {
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

void relay(void) {
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

void usage_error(const char *fmt, const char *arg) {
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

