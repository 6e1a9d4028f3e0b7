package dev.cotenant.examples.dashboard;

import static org.junit.jupiter.api.Assertions.fail;

import dev.cotenant.testkit.process.Processes;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's Chromium, headless, driven through Debian's chromedriver: both named by path, so
 * Selenium Manager (which would look for drivers on the network) never runs. Each browser has a
 * profile directory of its own, removed on close; closing quits the browser and stops the driver,
 * so neither outlives the test. The driver carries the kit's cookie, as does everything it starts.
 */
final class Browser implements AutoCloseable {
  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  static final String INSTALL = "apt-get install chromium chromium-driver";

  final ChromeDriver driver;
  private final ChromeDriverService service;
  private final Path profile;

  /** Fails, naming the Debian packages, when Chromium or its driver is missing. */
  static void requireInstalled() {
    for (Path p : new Path[] {CHROMIUM, CHROMEDRIVER}) {
      if (!Files.isExecutable(p)) {
        fail(p + " is missing: the dashboard's browser tests drive Debian's Chromium; install it with '" + INSTALL
            + "' (as root), then run the tests again");
      }
    }
  }

  Browser(Path logDirectory) throws IOException {
    requireInstalled();
    // Belt and braces: with the driver's path known, Selenium does not ask Selenium Manager.
    System.setProperty(ChromeDriverService.CHROME_DRIVER_EXE_PROPERTY, CHROMEDRIVER.toString());
    Files.createDirectories(logDirectory);
    profile = Files.createTempDirectory("cotenant-chromium-");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--user-data-dir=" + profile, "--window-size=1280,900");
    service = new ChromeDriverService.Builder()
        .usingDriverExecutable(CHROMEDRIVER.toFile())
        .usingAnyFreePort()
        .withEnvironment(Map.of(Processes.COOKIE_ENV, Processes.cookie()))
        .withLogFile(logDirectory.resolve("chromedriver.log").toFile())
        .build();
    ChromeDriver d;
    try {
      d = new ChromeDriver(service, options);
    } catch (RuntimeException e) {
      service.stop();
      deleteProfile();
      throw e;
    }
    driver = d;
    driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(30));
  }

  /**
   * Saves what the browser shows to {@code file}; with {@code fullPage}, the window is first made
   * as tall as the page, so the picture holds all of it.
   */
  void screenshot(Path file, boolean fullPage) throws IOException {
    Dimension before = driver.manage().window().getSize();
    if (fullPage) {
      Object height = ((JavascriptExecutor) driver).executeScript(
          "return Math.ceil(Math.max(document.documentElement.scrollHeight, document.body.scrollHeight));");
      int h = height instanceof Number n ? n.intValue() : before.getHeight();
      driver.manage().window().setSize(new Dimension(before.getWidth(), Math.max(h + 40, 400)));
    }
    File shot = driver.getScreenshotAs(OutputType.FILE);
    Files.createDirectories(file.getParent());
    Files.copy(shot.toPath(), file, StandardCopyOption.REPLACE_EXISTING);
    Files.deleteIfExists(shot.toPath());
    if (fullPage) {
      driver.manage().window().setSize(before);
    }
  }

  @Override
  public void close() throws IOException {
    try {
      driver.quit();
    } finally {
      try {
        service.stop();
      } finally {
        deleteProfile();
      }
    }
  }

  private void deleteProfile() throws IOException {
    if (!Files.exists(profile)) {
      return;
    }
    try (Stream<Path> files = Files.walk(profile)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }
}
