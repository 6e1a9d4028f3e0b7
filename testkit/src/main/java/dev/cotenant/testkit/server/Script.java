package dev.cotenant.testkit.server;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.json.JsonMapper;

/** What a fake server does, as built by {@link FakeServer.Builder} and passed to {@link FakeMcpServer} as JSON. */
record Script(
    String name,
    FakeServer.Era era,
    String serverName,
    String serverVersion,
    List<Tool> tools,
    FakeServer.CallMode callMode,
    boolean callerSensitiveTools,
    List<String> prompts,
    List<String> resources,
    boolean logging,
    Map<String, Object> experimental,
    String notificationOnCall,
    String serverRequestOnCall,
    int exitAfter,
    boolean silent,
    boolean spawnsChild,
    boolean ignoresTermination,
    String startsFile,
    boolean reportsProgress,
    boolean subscriptions,
    boolean notifiesFromArguments,
    boolean logsAtLevels,
    int notificationsBeforeInitialize,
    boolean writesNonJsonOnCall,
    String toolsFile,
    boolean asksRootsWhenInitialized) {

  static final JsonMapper MAPPER = JsonMapper.builder().build();

  /** One listed tool. */
  record Tool(String name, Optional<Map<String, Object>> annotations) {
    Map<String, Object> toJson() {
      Map<String, Object> t = new LinkedHashMap<>();
      t.put("name", name);
      t.put("description", "The " + name + " tool of a fake server.");
      t.put("inputSchema", Map.of("type", "object"));
      annotations.ifPresent(a -> t.put("annotations", a));
      return t;
    }
  }

  String toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", name);
    m.put("era", era.name());
    m.put("serverName", serverName);
    m.put("serverVersion", serverVersion);
    List<Object> ts = new ArrayList<>();
    tools.forEach(t -> ts.add(t.toJson()));
    m.put("tools", ts);
    m.put("callMode", callMode.name());
    m.put("callerSensitiveTools", callerSensitiveTools);
    m.put("prompts", prompts);
    m.put("resources", resources);
    m.put("logging", logging);
    m.put("experimental", experimental);
    m.put("notificationOnCall", notificationOnCall);
    m.put("serverRequestOnCall", serverRequestOnCall);
    m.put("exitAfter", exitAfter);
    m.put("silent", silent);
    m.put("spawnsChild", spawnsChild);
    m.put("ignoresTermination", ignoresTermination);
    m.put("startsFile", startsFile);
    m.put("reportsProgress", reportsProgress);
    m.put("subscriptions", subscriptions);
    m.put("notifiesFromArguments", notifiesFromArguments);
    m.put("logsAtLevels", logsAtLevels);
    m.put("notificationsBeforeInitialize", notificationsBeforeInitialize);
    m.put("writesNonJsonOnCall", writesNonJsonOnCall);
    m.put("toolsFile", toolsFile);
    m.put("asksRootsWhenInitialized", asksRootsWhenInitialized);
    return MAPPER.writeValueAsString(m);
  }

  @SuppressWarnings("unchecked")
  static Script fromJson(String json) {
    Map<String, Object> m = MAPPER.readValue(json, Map.class);
    List<Tool> tools = new ArrayList<>();
    for (Object o : (List<Object>) m.get("tools")) {
      Map<String, Object> t = (Map<String, Object>) o;
      tools.add(new Tool((String) t.get("name"), Optional.ofNullable((Map<String, Object>) t.get("annotations"))));
    }
    return new Script(
        (String) m.get("name"),
        FakeServer.Era.valueOf((String) m.get("era")),
        (String) m.get("serverName"),
        (String) m.get("serverVersion"),
        tools,
        FakeServer.CallMode.valueOf((String) m.get("callMode")),
        (Boolean) m.get("callerSensitiveTools"),
        (List<String>) m.get("prompts"),
        (List<String>) m.get("resources"),
        (Boolean) m.get("logging"),
        (Map<String, Object>) m.get("experimental"),
        (String) m.get("notificationOnCall"),
        (String) m.get("serverRequestOnCall"),
        ((Number) m.get("exitAfter")).intValue(),
        (Boolean) m.get("silent"),
        (Boolean) m.get("spawnsChild"),
        (Boolean) m.get("ignoresTermination"),
        (String) m.get("startsFile"),
        (Boolean) m.get("reportsProgress"),
        (Boolean) m.get("subscriptions"),
        (Boolean) m.get("notifiesFromArguments"),
        (Boolean) m.get("logsAtLevels"),
        ((Number) m.get("notificationsBeforeInitialize")).intValue(),
        (Boolean) m.get("writesNonJsonOnCall"),
        (String) m.get("toolsFile"),
        (Boolean) m.get("asksRootsWhenInitialized"));
  }
}
