package dev.cotenant.cli.daemon.api;

import java.nio.file.Path;
import java.util.List;

/**
 * The configuration files the API reads servers from, read afresh at each request: the daemon's
 * own (the only ones it ever writes) and those its shims named.
 */
public interface ConfigFiles {
  /** The daemon's own files. */
  List<Path> files();

  /** The files the daemon's shims named, without the daemon's own. */
  List<Path> shimFiles();
}
