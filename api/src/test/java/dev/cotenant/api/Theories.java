package dev.cotenant.api;

import org.quicktheories.QuickTheory;

/**
 * How the api's properties run under QuickTheories. Each property is a plain JUnit test that
 * hands a theory from here, and the function under test, to a static method holding the
 * property's body. A theory checks {@link #EXAMPLES} examples unless the property asks for
 * another number, and shrinks a falsifying example with QuickTheories' default budget. Every run
 * draws a fresh seed, so successive builds cover more inputs; a falsified property reports the
 * smallest falsifying example found and the seed ({@code Seed was ...}), and
 * {@code -DQT_SEED=<seed>} on the Maven command line replays that run.
 */
final class Theories {
  /** Examples per property unless the property asks for another number. */
  static final int EXAMPLES = 1000;

  /** The longest string and the largest collection a property draws unless it says otherwise. */
  static final int DEFAULT_MAX_SIZE = 255;

  private Theories() {}

  /** A theory over {@link #EXAMPLES} examples. */
  static QuickTheory qt() {
    return qt(EXAMPLES);
  }

  /** A theory over {@code examples} examples. */
  static QuickTheory qt(int examples) {
    return QuickTheory.qt().withExamples(examples);
  }
}
