package dev.cotenant.benchmarks;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Where the memory of one running JVM goes, read from outside it (Linux):
 *
 * <ul>
 *   <li>{@code /proc/<pid>/smaps}: every mapping's {@code Rss} and {@code Pss}, so file-backed
 *       memory is named by its file ({@code libjvm.so}, the CDS archive, the JDK's {@code modules}
 *       image, other libraries);
 *   <li>{@code /proc/<pid>/pagemap}: which pages of each anonymous mapping are resident, so an
 *       anonymous mapping can be split between the ranges the JVM reserved for different uses;
 *   <li>{@code /proc/<pid>/task}: how many threads it runs;
 *   <li>when the JVM runs with {@code -XX:NativeMemoryTracking=detail}: {@code jcmd PID
 *       VM.native_memory detail} (which reserved range is the Java heap, metaspace, the class
 *       space, the code cache, a thread's stack, the collector's structures; and what the JVM
 *       itself allocated with {@code malloc}, by category), and {@code jcmd PID GC.heap_info}
 *       (where the young and the old generation lie in the heap);
 *   <li>{@code jcmd PID Thread.print}: the threads by name.
 * </ul>
 *
 * <p>{@link #snapshot} reads the {@code /proc} files first; {@link Snapshot#attribute} runs
 * {@code jcmd} afterwards (attaching starts a thread and allocates, which the snapshot does not
 * see). Anonymous memory outside every range the JVM reserved is the C library's
 * ({@code malloc}'s main heap and its arenas) and whatever else maps memory itself.
 */
final class JvmMemoryMap {
  private JvmMemoryMap() {}

  private static final long PAGE = 4096;
  /** A glibc arena's heap: 64 MiB reserved, aligned to 64 MiB, part of it read-write. */
  private static final long ARENA = 64L << 20;

  /** One line of {@code smaps}: a mapping and what of it is resident (KiB). */
  record Vma(long start, long end, String perms, String name, long rssKb, long pssKb) {
    boolean anonymous() {
      return name.isEmpty() || name.equals("[heap]");
    }
  }

  /** A range the JVM reserved, with NMT's category for it. */
  record Region(long start, long end, String category) {}

  /** A part of the process and its resident memory (KiB). */
  record Part(String name, long rssKb, long pssKb) {}

  /** What {@code /proc} said at one moment. */
  record Snapshot(long pid, List<Vma> vmas, Map<Vma, BitSet> resident, Map<Long, Long> stackPointers, long pssKb,
      long rssKb) {
    int threads() {
      return stackPointers.size();
    }

    /**
     * The parts of this snapshot: file-backed memory by file, anonymous memory by what the JVM
     * reserved it for (when it runs with NMT), the rest as the C library's.
     *
     * @param nmt whether the JVM runs with {@code -XX:NativeMemoryTracking=detail}
     */
    Breakdown attribute(boolean nmt) throws Exception {
      List<Region> regions = new ArrayList<>();
      Map<String, Long> mallocKb = new LinkedHashMap<>();
      String nmtText = "";
      if (nmt) {
        nmtText = jcmd(pid, "VM.native_memory", "detail", "scale=KB");
        regions.addAll(regions(nmtText));
        mallocKb.putAll(mallocByCategory(nmtText));
      } else {
        // Without NMT's map: each thread's stack is the mapping its stack pointer lies in.
        for (long sp : stackPointers.values()) {
          for (Vma v : vmas) {
            if (v.start() <= sp && sp < v.end() && v.name().isEmpty()) {
              Region r = new Region(v.start(), v.end(), "thread stacks");
              if (!regions.contains(r)) {
                regions.add(r);
              }
            }
          }
        }
      }
      regions = splitHeap(regions, jcmd(pid, "GC.heap_info"));
      Map<String, long[]> parts = new LinkedHashMap<>();
      int arenas = 0;
      for (int i = 0; i < vmas.size(); i++) {
        Vma v = vmas.get(i);
        if (v.perms().startsWith("---") && v.name().isEmpty() && v.rssKb() == 0) {
          continue;
        }
        if (!v.anonymous()) {
          add(parts, fileKind(v.name()), v.rssKb(), v.pssKb());
          continue;
        }
        BitSet pages = resident.getOrDefault(v, new BitSet());
        long counted = 0;
        long rssPages = 0;
        for (Region r : regions) {
          long lo = Math.max(r.start(), v.start());
          long hi = Math.min(r.end(), v.end());
          if (lo >= hi) {
            continue;
          }
          int n = pages.get((int) ((lo - v.start()) / PAGE), (int) ((hi - v.start()) / PAGE)).cardinality();
          rssPages += n;
          counted += n * PAGE / 1024;
          add(parts, "anonymous: " + r.category(), n * PAGE / 1024, scaled(v, n * PAGE / 1024));
        }
        long restKb = Math.max(0, v.rssKb() - counted);
        boolean arena = v.start() % ARENA == 0 && i + 1 < vmas.size() && vmas.get(i + 1).start() == v.end()
            && vmas.get(i + 1).end() - v.start() == ARENA && vmas.get(i + 1).perms().startsWith("---");
        if (arena || (v.start() % ARENA == 0 && v.end() - v.start() == ARENA && !v.perms().startsWith("---"))) {
          arenas++;
        }
        String rest = v.name().equals("[heap]") ? "malloc: main heap ([heap])"
            : arena ? "malloc: arenas" : nmt ? "anonymous, outside the JVM's ranges"
            : "anonymous: the rest (metaspace, code cache, GC, ...)";
        if (restKb > 0) {
          add(parts, rest, restKb, scaled(v, restKb));
        }
        if (rssPages > pages.cardinality()) {
          throw new IllegalStateException("overlapping ranges at " + Long.toHexString(v.start()));
        }
      }
      List<Part> out = new ArrayList<>();
      parts.forEach((k, a) -> out.add(new Part(k, a[0], a[1])));
      return new Breakdown(this, out, arenas, mallocKb, stacksByName(threadNames(pid)), nmtText);
    }

    /**
     * Per thread name (digits as N, a backend's label as SERVER::ID): how many threads, and the resident KiB of their stacks (the
     * mapping that holds the thread's stack pointer; a thread whose pointer was not read, or lies
     * in the process's main stack, counts 0).
     */
    private Map<String, long[]> stacksByName(Map<Long, String> names) {
      Map<String, long[]> out = new TreeMap<>();
      for (Map.Entry<Long, Long> t : stackPointers.entrySet()) {
        String name = names.getOrDefault(t.getKey(), "(not a Java thread)").replaceAll("backend \\S+::[0-9a-f]+",
            "backend SERVER::ID").replaceAll("@.*", "@...").replaceAll("[0-9]+", "N");
        long kb = 0;
        for (Vma v : vmas) {
          if (v.start() <= t.getValue() && t.getValue() < v.end() && v.name().isEmpty()) {
            kb = resident.getOrDefault(v, new BitSet()).cardinality() * PAGE / 1024;
          }
        }
        long[] a = out.computeIfAbsent(name, k -> new long[2]);
        a[0]++;
        a[1] += kb;
      }
      return out;
    }

    private static long scaled(Vma v, long kb) {
      return v.rssKb() == 0 ? 0 : Math.round((double) kb * v.pssKb() / v.rssKb());
    }
  }

  /** The parts, the glibc arenas counted, the JVM's own mallocs by NMT category, the threads by name. */
  record Breakdown(Snapshot snapshot, List<Part> parts, int arenas, Map<String, Long> mallocKb,
      Map<String, long[]> threads, String nmtText) {

    void print(String label) {
      System.out.printf(Locale.ROOT, "%s: pid %d, Pss %.1f MiB, Rss %.1f MiB, %d threads%n", label, snapshot.pid(),
          snapshot.pssKb() / 1024.0, snapshot.rssKb() / 1024.0, snapshot.threads());
      System.out.printf(Locale.ROOT, "  %-48s %9s %9s%n", "part", "Pss MiB", "Rss MiB");
      long pss = 0;
      long rss = 0;
      List<Part> sorted = new ArrayList<>(parts);
      sorted.sort((a, b) -> Long.compare(b.pssKb(), a.pssKb()));
      for (Part p : sorted) {
        pss += p.pssKb();
        rss += p.rssKb();
        System.out.printf(Locale.ROOT, "  %-48s %9.1f %9.1f%n", p.name(), p.pssKb() / 1024.0, p.rssKb() / 1024.0);
      }
      System.out.printf(Locale.ROOT, "  %-48s %9.1f %9.1f%n", "(sum of the parts)", pss / 1024.0, rss / 1024.0);
      if (arenas > 0) {
        System.out.printf(Locale.ROOT, "  glibc malloc arenas besides the main heap: %d%n", arenas);
      }
      if (!mallocKb.isEmpty()) {
        long total = mallocKb.values().stream().mapToLong(Long::longValue).sum();
        StringBuilder b = new StringBuilder();
        mallocKb.entrySet().stream().sorted((x, y) -> Long.compare(y.getValue(), x.getValue())).limit(8)
            .forEach(e -> b.append(String.format(Locale.ROOT, "; %s %.1f", e.getKey(), e.getValue() / 1024.0)));
        System.out.printf(Locale.ROOT, "  the JVM's own malloc (NMT, MiB): %.1f%s%n", total / 1024.0, b);
      }
      for (String l : nmtText.split("\n")) {
        if (l.contains("(classes #") || l.contains("instance classes #")) {
          System.out.println("  NMT: " + l.strip());
        }
      }
      System.out.println("  threads by name (digits as N): how many, their stacks' resident KiB in all");
      long kb = 0;
      for (Map.Entry<String, long[]> t : threads.entrySet()) {
        String name = t.getKey().length() > 60 ? t.getKey().substring(0, 57) + "..." : t.getKey();
        System.out.printf(Locale.ROOT, "    %-60s %4d %8d%n", name, t.getValue()[0], t.getValue()[1]);
        kb += t.getValue()[1];
      }
      System.out.printf(Locale.ROOT, "    %-60s %4d %8d%n", "(all)", snapshot.threads(), kb);
    }
  }

  /** Reads smaps, pagemap and the thread count of {@code pid} now. */
  static Snapshot snapshot(long pid) throws IOException {
    List<Vma> vmas = smaps(pid);
    Map<Vma, BitSet> resident = new LinkedHashMap<>();
    try (RandomAccessFile pagemap = new RandomAccessFile("/proc/" + pid + "/pagemap", "r")) {
      for (Vma v : vmas) {
        if (v.anonymous() && v.rssKb() > 0) {
          resident.put(v, present(pagemap, v));
        }
      }
    }
    Map<Long, Long> stackPointers = new TreeMap<>();
    List<Path> tasks;
    try (Stream<Path> list = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      tasks = list.toList();
    }
    for (Path task : tasks) {
      long sp = -1;
      try {
        // "NR ARG1 .. ARG6 SP PC" while the thread waits in a system call, else "running" or "-1 SP PC".
        String[] f = Files.readString(task.resolve("syscall")).trim().split("\\s+");
        if (f.length >= 3) {
          sp = Long.parseUnsignedLong(f[f.length - 2].substring(2), 16);
        }
      } catch (IOException | RuntimeException e) {
        // Gone, or not readable: counted without its stack.
      }
      stackPointers.put(Long.parseLong(task.getFileName().toString()), sp);
    }
    ProcStats.Memory m = ProcStats.memory(pid);
    return new Snapshot(pid, vmas, resident, stackPointers, m.pssKb(), m.rssKb());
  }

  private static final Pattern VMA = Pattern.compile("^([0-9a-f]+)-([0-9a-f]+) (\\S{4}) \\S+ \\S+ \\d+\\s*(.*)$");

  private static List<Vma> smaps(long pid) throws IOException {
    List<Vma> out = new ArrayList<>();
    long start = -1;
    long end = 0;
    String perms = "";
    String name = "";
    long rss = 0;
    for (String l : Files.readAllLines(Path.of("/proc", Long.toString(pid), "smaps"), StandardCharsets.UTF_8)) {
      Matcher m = VMA.matcher(l);
      if (m.matches()) {
        if (start >= 0) {
          throw new IllegalStateException("smaps: no Pss line for " + Long.toHexString(start));
        }
        start = Long.parseUnsignedLong(m.group(1), 16);
        end = Long.parseUnsignedLong(m.group(2), 16);
        perms = m.group(3);
        name = m.group(4).strip();
      } else if (l.startsWith("Rss:")) {
        rss = kb(l);
      } else if (l.startsWith("Pss:") && start >= 0) {
        out.add(new Vma(start, end, perms, name, rss, kb(l)));
        start = -1;
      }
    }
    return out;
  }

  private static long kb(String line) {
    return Long.parseLong(line.trim().split("\\s+")[1]);
  }

  /** Bit i set when page i of {@code v} is resident (bit 63 of its pagemap entry). */
  private static BitSet present(RandomAccessFile pagemap, Vma v) throws IOException {
    int pages = (int) ((v.end() - v.start()) / PAGE);
    BitSet out = new BitSet(pages);
    byte[] chunk = new byte[8 * 4096];
    for (int first = 0; first < pages; first += 4096) {
      int n = Math.min(4096, pages - first);
      pagemap.seek((v.start() / PAGE + first) * 8);
      pagemap.readFully(chunk, 0, n * 8);
      ByteBuffer b = ByteBuffer.wrap(chunk, 0, n * 8).order(ByteOrder.LITTLE_ENDIAN);
      for (int i = 0; i < n; i++) {
        if (b.getLong() < 0) {
          out.set(first + i);
        }
      }
    }
    return out;
  }

  private static String fileKind(String name) {
    if (name.endsWith("/libjvm.so")) {
      return "file: libjvm.so";
    }
    if (name.endsWith(".jsa")) {
      return "file: CDS archive (" + Path.of(name).getFileName() + ")";
    }
    if (name.endsWith("/lib/modules")) {
      return "file: the JDK's modules image";
    }
    if (name.endsWith(".so") || name.contains(".so.")) {
      return "file: other shared libraries";
    }
    if (name.startsWith("[")) {
      return "kernel: " + name;
    }
    return name.startsWith("/") ? "file: other (" + Path.of(name).getFileName() + ")" : "other: " + name;
  }

  private static void add(Map<String, long[]> parts, String name, long rss, long pss) {
    long[] a = parts.computeIfAbsent(name, k -> new long[2]);
    a[0] += rss;
    a[1] += pss;
  }

  private static final Pattern RESERVED =
      Pattern.compile("^\\[0x([0-9a-f]+) - 0x([0-9a-f]+)\\] reserved \\d+KB for (.+?)(?: from)?\\s*$");

  /** The reserved ranges of NMT's virtual memory map, by category. */
  static List<Region> regions(String nmt) {
    List<Region> out = new ArrayList<>();
    for (String l : nmt.split("\n")) {
      Matcher m = RESERVED.matcher(l);
      if (m.matches()) {
        String category = switch (m.group(3)) {
          case "Thread Stack" -> "thread stacks";
          case "Java Heap" -> "Java heap";
          case "Class" -> "class space";
          case "Metaspace" -> "metaspace (non-class)";
          case "Code" -> "code cache";
          case "Shared class space" -> "CDS archive (anonymous)";
          default -> "NMT " + m.group(3);
        };
        out.add(new Region(Long.parseUnsignedLong(m.group(1), 16), Long.parseUnsignedLong(m.group(2), 16), category));
      }
    }
    return out;
  }

  private static final Pattern CATEGORY = Pattern.compile("^-\\s+(.+?) \\(reserved=\\d+KB, committed=\\d+KB\\)\\s*$");
  private static final Pattern MALLOC = Pattern.compile("^\\s+\\(malloc=(\\d+)KB #\\d+\\).*$");
  private static final Pattern ARENA_LINE = Pattern.compile("^\\s+\\(arena=(\\d+)KB #\\d+\\).*$");

  /** The JVM's own {@code malloc} (and malloc'd arena chunks) by NMT category, KiB. */
  static Map<String, Long> mallocByCategory(String nmt) {
    Map<String, Long> out = new LinkedHashMap<>();
    String category = null;
    for (String l : nmt.split("\n")) {
      if (l.startsWith("Virtual memory map")) {
        break;
      }
      Matcher c = CATEGORY.matcher(l);
      if (c.matches()) {
        category = c.group(1);
        continue;
      }
      Matcher m = MALLOC.matcher(l);
      if (category != null && m.matches()) {
        out.merge(category, Long.parseLong(m.group(1)), Long::sum);
      }
      Matcher a = ARENA_LINE.matcher(l);
      if (category != null && a.matches()) {
        out.merge(category, Long.parseLong(a.group(1)), Long::sum);
      }
    }
    return out;
  }

  private static final Pattern GENERATION =
      Pattern.compile("^\\s*(def new|tenured) generation .*\\[0x([0-9a-f]+), 0x[0-9a-f]+, 0x([0-9a-f]+)\\)\\s*$");

  /**
   * {@code regions} with the heap's range (when NMT gave one) replaced by the young and the old
   * generation, as {@code GC.heap_info} of the serial collector gives them (added when NMT gave none).
   */
  static List<Region> splitHeap(List<Region> regions, String heapInfo) {
    List<Region> generations = new ArrayList<>();
    for (String l : heapInfo.split("\n")) {
      Matcher m = GENERATION.matcher(l);
      if (m.matches()) {
        generations.add(new Region(Long.parseUnsignedLong(m.group(2), 16), Long.parseUnsignedLong(m.group(3), 16),
            m.group(1).equals("def new") ? "Java heap: young generation" : "Java heap: old generation"));
      }
    }
    if (generations.size() != 2) {
      return regions;
    }
    List<Region> out = new ArrayList<>(generations);
    for (Region r : regions) {
      if (!r.category().equals("Java heap")) {
        out.add(r);
      }
    }
    return out;
  }

  private static final Pattern THREAD = Pattern.compile("^\"(.+?)\" .* nid=0x([0-9a-f]+) .*$");

  /** The JVM's threads' names by their Linux thread id ({@code jcmd PID Thread.print}). */
  static Map<Long, String> threadNames(long pid) throws Exception {
    Map<Long, String> out = new TreeMap<>();
    for (String l : jcmd(pid, "Thread.print").split("\n")) {
      Matcher m = THREAD.matcher(l);
      if (m.matches()) {
        out.put(Long.parseLong(m.group(2), 16), m.group(1));
      }
    }
    return out;
  }

  /**
   * What is live on the heap: {@code jcmd PID GC.class_histogram} (which collects the whole heap
   * first, so it is read after everything else), its total and its {@code top} largest classes.
   */
  static String liveHeap(long pid, int top) throws Exception {
    List<String> lines = jcmd(pid, "GC.class_histogram").lines().toList();
    StringBuilder b = new StringBuilder();
    for (String l : lines) {
      if (l.startsWith("Total")) {
        String[] f = l.trim().split("\\s+");
        b.insert(0, String.format(Locale.ROOT, "live heap after a full collection: %.1f MiB in %s objects; largest:%n",
            Long.parseLong(f[2]) / 1048576.0, f[1]));
      }
    }
    lines.stream().filter(l -> l.matches("^\\s*\\d+:.*")).limit(top).forEach(l -> b.append("    ").append(l.strip())
        .append('\n'));
    return b.toString();
  }

  /** {@code jcmd PID ARGS}, its output. */
  static String jcmd(long pid, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
        Long.toString(pid)));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IllegalStateException("jcmd " + String.join(" ", cmd) + " failed: " + out);
    }
    return out;
  }
}
