package dev.cotenant.spi.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cotenant.spi.rpc.ListingPager.Refusal;
import dev.cotenant.spi.rpc.ListingPager.RefusedPage;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The one paging rule of a listing: items, the next cursor, its loop, and the bounds. */
class ListingPagerTest {
  private static Map<String, Object> page(List<?> tools, String next) {
    return next == null ? Map.of("tools", tools) : Map.of("tools", tools, "nextCursor", next);
  }

  @Test
  void followsTheCursorUntilAPageNamesNone() throws Exception {
    ListingPager p = new ListingPager("tools/list", "tools", 10, 100);
    assertTrue(p.more());
    assertEquals(Map.of(), p.params());
    assertEquals(Optional.empty(), p.cursor());
    p.read(page(List.of("a"), "c1"));
    assertTrue(p.more());
    assertEquals(Map.of("cursor", "c1"), p.params());
    p.read(page(List.of("b", "c"), ""));
    assertFalse(p.more());
    assertEquals(List.of("a", "b", "c"), p.items());
    assertEquals(2, p.pages());
    assertThrows(IllegalStateException.class, () -> p.read(page(List.of(), null)));
  }

  @Test
  void aPageWithoutItemsOrWithACursorThatIsNotAStringEndsTheListing() throws Exception {
    ListingPager p = new ListingPager("prompts/list", "prompts", 10, 100);
    p.read(Map.of("nextCursor", 7));
    assertFalse(p.more());
    assertEquals(List.of(), p.items());
  }

  @Test
  void aRepeatedCursorIsALoop() throws Exception {
    ListingPager p = new ListingPager("tools/list", "tools", 10, 100);
    p.read(page(List.of("a"), "c1"));
    p.read(page(List.of("b"), "c2"));
    RefusedPage e = assertThrows(RefusedPage.class, () -> p.read(page(List.of("c"), "c1")));
    assertEquals(Refusal.LOOP, e.refusal());
    assertEquals("tools/list repeated a nextCursor (a loop)", e.getMessage());
    assertFalse(e.malformed());
    assertFalse(p.more());
    assertEquals(List.of("a", "b", "c"), p.items());
  }

  @Test
  void theLastPageTheBoundAllowsMayNotNameAnother() throws Exception {
    ListingPager p = new ListingPager("tools/list", "tools", 2, 100);
    p.read(page(List.of("a"), "c1"));
    RefusedPage e = assertThrows(RefusedPage.class, () -> p.read(page(List.of("b"), "c2")));
    assertEquals(Refusal.TOO_MANY_PAGES, e.refusal());
    assertEquals("tools/list did not end within 2 pages", e.getMessage());
    assertEquals(List.of("a", "b"), p.items());
    ListingPager last = new ListingPager("tools/list", "tools", 2, 100);
    last.read(page(List.of("a"), "c1"));
    last.read(page(List.of("b"), null));
    assertEquals(List.of("a", "b"), last.items());
  }

  @Test
  void itemsBeyondTheBoundAreRefused() throws Exception {
    ListingPager p = new ListingPager("resources/list", "resources", 10, 2);
    p.read(Map.of("resources", List.of("a"), "nextCursor", "c1"));
    RefusedPage e = assertThrows(RefusedPage.class, () -> p.read(Map.of("resources", List.of("b", "c"))));
    assertEquals(Refusal.TOO_MANY_ITEMS, e.refusal());
    assertEquals("resources/list listed more than 2 items", e.getMessage());
    ListingPager exact = new ListingPager("resources/list", "resources", 10, 2);
    exact.read(Map.of("resources", List.of("a", "b")));
    assertEquals(2, exact.items().size());
  }

  @Test
  void aPageThatIsNotAListingsIsMalformed() {
    RefusedPage notObject = assertThrows(RefusedPage.class,
        () -> new ListingPager("tools/list", "tools", 10, 100).read(List.of()));
    assertEquals(Refusal.NOT_AN_OBJECT, notObject.refusal());
    assertEquals("tools/list answered without a result object", notObject.getMessage());
    assertTrue(notObject.malformed());
    RefusedPage notList = assertThrows(RefusedPage.class,
        () -> new ListingPager("tools/list", "tools", 10, 100).read(Map.of("tools", "x")));
    assertEquals(Refusal.NOT_A_LIST, notList.refusal());
    assertEquals("tools/list answered tools that is not a list", notList.getMessage());
    assertTrue(notList.malformed());
  }

  @Test
  void boundsBelowOneAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> new ListingPager("tools/list", "tools", 0, 1));
    assertThrows(IllegalArgumentException.class, () -> new ListingPager("tools/list", "tools", 1, 0));
  }
}
