package dev.cotenant.cli.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** When the heap trim asks for a collection: a committed heap and a collector of its own. */
class HeapTrimTest {
  private static final long MIB = 1 << 20;

  /**
   * Nothing is collected until the heap has grown by more than the allowance since the start;
   * then once, and the heap it shrank to is the new start. Mutants: the growth compared with
   * {@code >=}, the baseline not taken again after the collection.
   */
  @Test
  void aCollectionOnlyAfterTheHeapGrewPastTheAllowance() {
    AtomicLong heap = new AtomicLong(16 * MIB);
    AtomicInteger collections = new AtomicInteger();
    HeapTrim trim = new HeapTrim(heap::get, () -> {
      collections.incrementAndGet();
      heap.set(24 * MIB);
    });
    heap.set((16 + HeapTrim.GROWTH_MIB) * MIB);
    trim.run();
    assertEquals(0, collections.get(), "grown by exactly the allowance");
    heap.set((16 + HeapTrim.GROWTH_MIB) * MIB + 1);
    trim.run();
    assertEquals(1, collections.get());
    heap.set((24 + HeapTrim.GROWTH_MIB) * MIB);
    trim.run();
    assertEquals(1, collections.get(), "measured from what the collection left");
    heap.set((24 + HeapTrim.GROWTH_MIB) * MIB + 1);
    trim.run();
    assertEquals(2, collections.get());
  }

  /** A heap that shrank by itself is measured from there. Mutant: the baseline kept at its old, higher value. */
  @Test
  void growthCountsFromAHeapThatShrankByItself() {
    AtomicLong heap = new AtomicLong(40 * MIB);
    AtomicInteger collections = new AtomicInteger();
    HeapTrim trim = new HeapTrim(heap::get, collections::incrementAndGet);
    heap.set(20 * MIB);
    trim.run();
    heap.set((20 + HeapTrim.GROWTH_MIB) * MIB + 1);
    trim.run();
    assertEquals(1, collections.get());
  }
}
