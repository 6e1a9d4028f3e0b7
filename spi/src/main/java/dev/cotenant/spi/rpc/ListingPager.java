package dev.cotenant.spi.rpc;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The paging rule of one MCP listing ({@code tools/list}, {@code resources/list},
 * {@code resources/templates/list}, {@code prompts/list}): the caller sends the request of
 * {@link #params()}, hands each page's {@code result} to {@link #read(Object)}, and asks again
 * while {@link #more()}. A page's items are its {@code field} member (absent: none); its
 * {@code nextCursor}, when a non-empty string, asks for another page. Bounded by pages and items;
 * a cursor that comes back is a loop. Pure: no IO; one pager per listing and caller, not
 * thread-safe.
 */
public final class ListingPager {
  private final String method;
  private final String field;
  private final int maxPages;
  private final int maxItems;
  private final List<@Nullable Object> items = new ArrayList<>();
  private final Set<String> seen = new HashSet<>();
  private @Nullable String cursor;
  private int pages;
  private boolean done;

  /**
   * A pager of {@code method}'s listing, whose items are the result's {@code field} member.
   *
   * @param maxPages the most pages read; a page beyond them is refused ({@link Refusal#TOO_MANY_PAGES})
   * @param maxItems the most items taken; more are refused ({@link Refusal#TOO_MANY_ITEMS})
   * @throws IllegalArgumentException when a bound is below 1
   */
  public ListingPager(String method, String field, int maxPages, int maxItems) {
    this.method = Objects.requireNonNull(method, "method");
    this.field = Objects.requireNonNull(field, "field");
    if (maxPages < 1 || maxItems < 1) {
      throw new IllegalArgumentException("a listing takes at least one page and one item");
    }
    this.maxPages = maxPages;
    this.maxItems = maxItems;
  }

  /** The listing's method. */
  public String method() {
    return method;
  }

  /** Whether another page is to be asked for: none read yet, or the last one named a next cursor. */
  public boolean more() {
    return !done;
  }

  /** The cursor the next request carries; empty for the first page. */
  public Optional<String> cursor() {
    return Optional.ofNullable(cursor);
  }

  /** A new, mutable params object for the next request: {@code {"cursor": ...}} after the first page, else empty. */
  public Map<String, Object> params() {
    Map<String, Object> params = new LinkedHashMap<>();
    if (cursor != null) {
      params.put("cursor", cursor);
    }
    return params;
  }

  /** The pages read so far. */
  public int pages() {
    return pages;
  }

  /**
   * Every item read so far, in order (including those of a page that was then refused): an
   * unmodifiable copy, which may hold Java {@code null} for a JSON {@code null} item.
   */
  public List<@Nullable Object> items() {
    return Collections.unmodifiableList(new ArrayList<@Nullable Object>(items));
  }

  /**
   * Reads one page's {@code result}: takes its items, then its next cursor.
   *
   * @throws IllegalStateException when the listing has already ended
   * @throws RefusedPage when the page cannot be taken, saying why; the listing then ends
   */
  public void read(@Nullable Object result) throws RefusedPage {
    if (done) {
      throw new IllegalStateException(method + " has no more pages to read");
    }
    pages++;
    done = true;
    if (!(result instanceof Map<?, ?> page)) {
      throw new RefusedPage(Refusal.NOT_AN_OBJECT, method + " answered without a result object");
    }
    Object listed = page.get(field);
    if (listed instanceof List<?> list) {
      items.addAll(list);
      if (items.size() > maxItems) {
        throw new RefusedPage(Refusal.TOO_MANY_ITEMS, method + " listed more than " + maxItems + " items");
      }
    } else if (listed != null) {
      throw new RefusedPage(Refusal.NOT_A_LIST, method + " answered " + field + " that is not a list");
    }
    Object next = page.get("nextCursor");
    if (!(next instanceof String n) || n.isEmpty()) {
      return;
    }
    if (!seen.add(n)) {
      throw new RefusedPage(Refusal.LOOP, method + " repeated a nextCursor (a loop)");
    }
    if (pages >= maxPages) {
      throw new RefusedPage(Refusal.TOO_MANY_PAGES, method + " did not end within " + maxPages + " pages");
    }
    cursor = n;
    done = false;
  }

  /** Why a page was refused. */
  public enum Refusal {
    /** The result is not a JSON object. */
    NOT_AN_OBJECT,
    /** The items member is not a list. */
    NOT_A_LIST,
    /** The items so far exceed the bound. */
    TOO_MANY_ITEMS,
    /** The page names a cursor that an earlier page named. */
    LOOP,
    /** The last page the bound allows names a next cursor. */
    TOO_MANY_PAGES
  }

  /** A page the pager refuses; its message names the method and what is wrong. */
  public static final class RefusedPage extends Exception {
    private static final long serialVersionUID = 1L;
    private final Refusal refusal;

    /** A refusal for {@code refusal}, with the message to show. */
    public RefusedPage(Refusal refusal, String message) {
      super(message);
      this.refusal = Objects.requireNonNull(refusal, "refusal");
    }

    /** Why the page was refused. */
    public Refusal refusal() {
      return refusal;
    }

    /** True for a page that is not a listing's at all (no result object, items that are not a list). */
    public boolean malformed() {
      return refusal == Refusal.NOT_AN_OBJECT || refusal == Refusal.NOT_A_LIST;
    }
  }
}
