/* Byte buffers, JSON quoting and the peek at a message's top-level members: see shim.h. */
#include "shim.h"
#include <math.h>

/* ---- byte buffers ------------------------------------------------------------------------ */


void out_of_memory(void) {
  static const char m[] = "cotenant-shim: out of memory\n";
  ssize_t ignored = write(2, m, sizeof m - 1);
  (void)ignored;
  _exit(EXIT_DAEMON);
}

size_t buf_size(const buf_t *b) { return b->len - b->off; }

char *buf_data(const buf_t *b) { return b->p + b->off; }

/* Gives back the memory of a buffer that grew for one large message. */
void buf_shrink(buf_t *b) {
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

void buf_reserve(buf_t *b, size_t extra) {
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

void buf_add(buf_t *b, const void *data, size_t n) {
  buf_reserve(b, n);
  memcpy(b->p + b->len, data, n);
  b->len += n;
}

void buf_adds(buf_t *b, const char *s) { buf_add(b, s, strlen(s)); }

void buf_addc(buf_t *b, char c) { buf_add(b, &c, 1); }

void buf_drop(buf_t *b, size_t n) {
  b->off += n;
  if (b->off == b->len) {
    b->off = b->len = 0;
    buf_shrink(b);
  }
}

void buf_clear(buf_t *b) {
  b->off = b->len = 0;
  buf_shrink(b);
}

/* A NUL-terminated copy of the content. */
char *buf_cstr(const buf_t *b) {
  char *s = malloc(buf_size(b) + 1);
  if (s == NULL) {
    out_of_memory();
  }
  memcpy(s, buf_data(b), buf_size(b));
  s[buf_size(b)] = '\0';
  return s;
}

char *dup_str(const char *s) {
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
void json_quote(buf_t *out, const char *s, size_t n) {
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


void json_ws(cursor_t *c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) {
    c->p++;
  }
}

int hex_value(char h) {
  if (h >= '0' && h <= '9') return h - '0';
  if (h >= 'a' && h <= 'f') return h - 'a' + 10;
  if (h >= 'A' && h <= 'F') return h - 'A' + 10;
  return -1;
}

int read_u16(const char *p, const char *end, unsigned *v) {
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

void add_utf8(buf_t *out, unsigned cp) {
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
int json_string(cursor_t *c, buf_t *out) {
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
int json_value(cursor_t *c) {
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


/*
 * The key of a request id (RequestId.key), so that ids naming the same request match however each
 * side wrote them: a string id is "s" and its text quoted as json_quote quotes it; an integer is
 * "n:" and its digits without leading zeros ("-0" is "0"); any other number is read as a double,
 * as the daemon reads it, and is "n:" and that double in plain decimal without trailing zeros, in
 * the fewest digits that read back to the same double (1.0, 1e0 and 1 are all "n:1"). NULL when
 * the text names no valid id (not finite, null, or any other kind).
 */
char *id_key(const char *text, size_t len, int kind) {
  buf_t k = {0};
  if (kind == V_STRING) {
    buf_addc(&k, 's');
    buf_add(&k, text, len);
  } else if (kind == V_INTEGER) {
    const char *p = text;
    const char *end = text + len;
    int negative = p < end && *p == '-';
    if (negative) {
      p++;
    }
    while (end - p > 1 && *p == '0') {
      p++;
    }
    buf_adds(&k, "n:");
    if (negative && !(end - p == 1 && *p == '0')) {
      buf_addc(&k, '-');
    }
    buf_add(&k, p, (size_t)(end - p));
  } else if (kind == V_NUMBER) {
    char *copy = malloc(len + 1);
    if (copy == NULL) {
      out_of_memory();
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    double d = strtod(copy, NULL);
    free(copy);
    if (!isfinite(d)) {
      return NULL;
    }
    char e[40];
    for (int digits = 1; digits <= 17; digits++) {
      snprintf(e, sizeof e, "%.*e", digits - 1, d);
      if (strtod(e, NULL) == d) {
        break;
      }
    }
    /* e is [-]D[.DDD]e[+-]X: the digits, and the power of ten of the first. */
    char mantissa[24];
    size_t m = 0;
    const char *p = e;
    int negative = *p == '-';
    if (negative) {
      p++;
    }
    for (; *p != 'e'; p++) {
      if (*p != '.') {
        mantissa[m++] = *p;
      }
    }
    int exponent = atoi(p + 1);
    while (m > 1 && mantissa[m - 1] == '0') {
      m--;
    }
    buf_adds(&k, "n:");
    if (m == 1 && mantissa[0] == '0') {
      buf_addc(&k, '0');
    } else {
      if (negative) {
        buf_addc(&k, '-');
      }
      if (exponent < 0) {
        buf_adds(&k, "0.");
        for (int i = -1; i > exponent; i--) {
          buf_addc(&k, '0');
        }
        buf_add(&k, mantissa, m);
      } else if ((size_t)exponent + 1 >= m) {
        buf_add(&k, mantissa, m);
        for (size_t i = m; i < (size_t)exponent + 1; i++) {
          buf_addc(&k, '0');
        }
      } else {
        buf_add(&k, mantissa, (size_t)exponent + 1);
        buf_addc(&k, '.');
        buf_add(&k, mantissa + exponent + 1, m - (size_t)exponent - 1);
      }
    }
  } else {
    return NULL;
  }
  char *key = buf_cstr(&k);
  free(k.p);
  return key;
}

void peek_free(peek_t *m) {
  free(m->id);
  free(m->key);
  free(m->method);
  free(m->kind);
  free(m->error);
  free(m->reason);
  free(m->placement);
  memset(m, 0, sizeof *m);
  m->pid = -1;
}

/*
 * Keeps a decoded string as a C string. A NUL inside it (written \u0000) would end the C string
 * early, and "initialize\u0000x" would read as "initialize": each is kept as the byte 0xFF, which
 * no UTF-8 text and so no method or kind the shim compares with holds.
 */
void set_string(char **slot, const buf_t *decoded) {
  free(*slot);
  *slot = buf_cstr(decoded);
  for (size_t i = 0; i < buf_size(decoded); i++) {
    if ((*slot)[i] == '\0') {
      (*slot)[i] = (char)0xFF;
    }
  }
}

/* Peeks at a line's top-level members; m->object is 0 when the line is not a JSON object. */
void peek(const char *line, size_t n, peek_t *m) {
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
      free(m->key);
      m->id = NULL;
      m->key = NULL;
      if (kind == V_STRING) {
        buf_t q = {0};
        json_quote(&q, buf_data(&text), buf_size(&text));
        m->id = buf_cstr(&q);
        m->key = id_key(buf_data(&q), buf_size(&q), V_STRING);
        free(q.p);
      } else if (kind == V_INTEGER || kind == V_NUMBER || kind == V_NULL) {
        size_t len = (size_t)(c.p - start);
        m->id = malloc(len + 1);
        if (m->id == NULL) {
          out_of_memory();
        }
        memcpy(m->id, start, len);
        m->id[len] = '\0';
        m->key = id_key(start, len, kind);
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
      size_t len = (size_t)(c.p - start);
      if (kind == V_INTEGER && len < 24) {
        char digits[24];
        memcpy(digits, start, len);
        digits[len] = '\0';
        m->pid = strtoll(digits, NULL, 10);
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

