package dev.cotenant.api;

import java.util.Arrays;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Formats the accepted wire names of a closed vocabulary for error messages. */
final class WireNames {
  private WireNames() {}

  static <T> String of(T[] values, Function<T, String> wire) {
    return Arrays.stream(values).map(wire).collect(Collectors.joining(", ", "[", "]"));
  }
}
