package dev.cotenant.fleet.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The fixtures start real servers and leave no process behind. */
class ServersSmokeTest {
  @Test
  void postgresAnswersAndLeavesNothing() throws Exception {
    List<ProcessHandle> processes;
    try (PostgresServer pg = PostgresServer.start()) {
      String url = pg.createDatabase("smoke");
      assertTrue(url.endsWith("/smoke"));
      try (Connection c = pg.connect("smoke"); Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT 40 + 2")) {
        assertTrue(r.next());
        assertEquals(42, r.getInt(1));
      }
      processes = pg.processes();
      assertTrue(processes.size() > 1, "the postmaster forked no process: " + processes);
    }
    processes.forEach(p -> assertFalse(p.isAlive(), "process " + p.pid() + " of PostgreSQL outlived close()"));
  }

  @Test
  void redisAnswersAndLeavesNothing() throws Exception {
    List<ProcessHandle> processes;
    try (RedisServer r = RedisServer.start()) {
      assertEquals("+OK", r.command("SET", "k", "v"));
      assertEquals("$1\nv", r.command("GET", "k"));
      assertEquals(1, r.integer("DEL", "k"));
      processes = r.processes();
    }
    processes.forEach(p -> assertFalse(p.isAlive(), "process " + p.pid() + " of Redis outlived close()"));
  }
}
