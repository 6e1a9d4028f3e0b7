package dev.cotenant.gateway.probe;

import dev.cotenant.spi.SessionException;
import dev.cotenant.spi.rpc.ListingPager;
import dev.cotenant.spi.rpc.RpcMessage;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The listings a session of a whole-surface probe run can see, read by every lane in lockstep
 * (each page's requests written before any answer is read): {@code tools/list}, and as the server
 * advertises them {@code resources/list}, {@code resources/templates/list} and
 * {@code prompts/list}, every page (by {@link ListingPager}, at most
 * {@value SurfaceProbe#MAX_PAGES}), then {@code resources/read} of the resources that appeared
 * since round 0. One per phase, on the run's thread.
 */
final class LockstepListings {
  private final SurfaceRun run;

  LockstepListings(SurfaceRun run) {
    this.run = run;
  }

  /** The listings of one round, and reads of the resources that appeared since round 0. */
  void round(List<ProbeLane> lanes, int round) throws SessionException, InterruptedException {
    record(lanes, SurfaceRun.key(round, "tools/list"), pages(lanes, "tools/list", "tools"));
    if (run.resources) {
      List<Map<String, Object>> listed = pages(lanes, "resources/list", "resources");
      record(lanes, SurfaceRun.key(round, "resources/list"), listed);
      record(lanes, SurfaceRun.key(round, "resources/templates/list"),
          pages(lanes, "resources/templates/list", "resourceTemplates"));
      reads(lanes, round, listed);
    }
    if (run.prompts) {
      record(lanes, SurfaceRun.key(round, "prompts/list"), pages(lanes, "prompts/list", "prompts"));
    }
  }

  /** Each lane reads, one resource at a time, those of its listing that were not there in round 0. */
  private void reads(List<ProbeLane> lanes, int round, List<Map<String, Object>> listed)
      throws SessionException, InterruptedException {
    List<List<String>> reads = new ArrayList<>();
    for (int i = 0; i < lanes.size(); i++) {
      ProbeLane lane = lanes.get(i);
      List<String> uris = uris(listed.get(i));
      if (round == 0) {
        lane.baselineUris.addAll(uris);
        reads.add(List.of());
      } else {
        reads.add(uris.stream().filter(u -> !lane.baselineUris.contains(u)).limit(SurfaceProbe.MAX_READS).toList());
      }
    }
    int most = reads.stream().mapToInt(List::size).max().orElse(0);
    for (int n = 0; n < most; n++) {
      int index = n;
      List<ProbeLane> reading = new ArrayList<>();
      for (int i = 0; i < lanes.size(); i++) {
        if (reads.get(i).size() > index) {
          reading.add(lanes.get(i));
        }
      }
      Map<ProbeLane, String> uriOf = new IdentityHashMap<>();
      for (ProbeLane lane : reading) {
        uriOf.put(lane, reads.get(lanes.indexOf(lane)).get(index));
      }
      for (ProbeLane lane : reading) {
        String uri = uriOf.get(lane);
        lane.readUris.add(uri);
        run.step(List.of(lane), SurfaceRun.key(round, "resources/read " + uri), false, null,
            l -> run.call(l, "resources/read", run.params(l, round, Map.of("uri", uri))));
      }
    }
  }

  private static void record(List<ProbeLane> lanes, String key, List<Map<String, Object>> answers) {
    for (int i = 0; i < lanes.size(); i++) {
      lanes.get(i).answers.put(key, answers.get(i));
    }
  }

  /**
   * Every page of a listing, for each lane (both written before either is read), merged into
   * one answer per lane: {@code {"result": {"<items>": [...]}}}, or the first page's error. A lane
   * whose page is an error, or one the pager refuses, stops there with what it has.
   */
  List<Map<String, Object>> pages(List<ProbeLane> lanes, String method, String items)
      throws SessionException, InterruptedException {
    List<ListingPager> pagers = new ArrayList<>();
    List<@Nullable Map<String, Object>> errors = new ArrayList<>();
    boolean[] ended = new boolean[lanes.size()];
    for (int i = 0; i < lanes.size(); i++) {
      pagers.add(new ListingPager(method, items, SurfaceProbe.MAX_PAGES, Integer.MAX_VALUE));
      errors.add(null);
    }
    boolean more = true;
    while (more) {
      List<@Nullable CompletableFuture<Map<String, Object>>> pending = new ArrayList<>();
      for (int i = 0; i < lanes.size(); i++) {
        ListingPager pager = pagers.get(i);
        pending.add(pager.more() && !ended[i] ? run.call(lanes.get(i), method, run.params(lanes.get(i), 0, pager.params())) : null);
      }
      long deadline = System.nanoTime() + run.settings.callTimeout().toNanos();
      more = false;
      for (int i = 0; i < lanes.size(); i++) {
        CompletableFuture<Map<String, Object>> f = pending.get(i);
        if (f == null) {
          continue;
        }
        ListingPager pager = pagers.get(i);
        RpcMessage.Response answer = run.await(f, deadline, method);
        if (answer.isError() || !(answer.result() instanceof Map<?, ?>)) {
          if (pager.pages() == 0) {
            errors.set(i, run.redactor.kept(answer));
          }
          ended[i] = true;
          continue;
        }
        try {
          pager.read(answer.result());
        } catch (ListingPager.RefusedPage e) {
          // a page beyond the bound, or a listing that loops: the probe compares what it has
          continue;
        }
        more |= pager.more();
      }
    }
    List<Map<String, Object>> out = new ArrayList<>();
    for (int i = 0; i < lanes.size(); i++) {
      Map<String, Object> error = errors.get(i);
      out.add(error != null ? error : run.redactor.kept(Map.of("result", Map.of(items, pagers.get(i).items()))));
    }
    return out;
  }

  private static List<String> uris(Map<String, Object> listing) {
    List<String> out = new ArrayList<>();
    if (listing.get("result") instanceof Map<?, ?> result && result.get("resources") instanceof List<?> resources) {
      for (Object r : resources) {
        if (r instanceof Map<?, ?> resource && resource.get("uri") instanceof String uri) {
          out.add(uri);
        }
      }
    }
    return out;
  }
}
