import IndefiniteObservable
import Multicast
import TestSupport
import Testing

/// Random scripts of subscribing (every way), unsubscribing, sending, re-entrant actions from
/// callbacks, and owners and bags let go of, run against the real source and against
/// ``MulticastModel``, a plain rendering of the documented behaviour. They must agree on every
/// delivery, in order, and on the counters after every step.
///
/// The scripts are seeded: a failure names the case and the run's seed (`RANDOM_SEED`), and
/// prints the script cut down to the steps that still make it fail.
@Suite(.checksLiveResources) struct MulticastModelTests {
  static let scripts = 1000
  static let steps = 40

  @Test(arguments: ModelSource.allCases)
  func randomScriptsBehaveLikeTheModel(source: ModelSource) async {
    let firstCase = ModelSource.allCases.firstIndex(of: source)! * Self.scripts
    for index in firstCase..<(firstCase + Self.scripts) {
      // A few seconds of scripts: let the tests running beside have the thread between them.
      await Task.yield()
      var generator = SeededGenerator(seed: SeededGenerator.seed(ofCase: index))
      let script = ModelAction.script(for: source, length: Self.steps, using: &generator)
      guard firstDisagreement(running: script, on: source) != nil else { continue }
      let shrunk = shrink(script, on: source)
      let disagreement = firstDisagreement(running: shrunk, on: source)!
      let steps = shrunk.prefix(disagreement.step + 1).enumerated().map { "  \($0): \($1)" }
      Issue.record(
        """
        \(source) disagrees with the model, \(SeededGenerator.replayHint(case: index)).
        The script, cut down to \(steps.count) of its \(script.count) steps:
        \(steps.joined(separator: "\n"))
        \(disagreement.what)
        """)
      return
    }
  }

  /// The model is not a copy of the implementation's behaviour: it says what the documentation
  /// says, here that a value sent from a callback reaches every subscriber before the outer
  /// send goes on, and the emitter agrees.
  @Test func theModelDeliversAReentrantSendBeforeTheOuterOne() {
    let reacting = SubscriberSpec(reaction: Reaction(every: 2, action: .send(9)))
    let script: [ModelAction] = [
      .subscribe(reacting), .subscribe(SubscriberSpec()), .send(1), .send(2),
    ]
    #expect(firstDisagreement(running: script, on: .emitter) == nil)
    let run = ModelRun { MulticastModel(emitterFor: $0) }
    for step in script { run.perform(step) }
    #expect(
      run.trace == [
        "subscribe #0", "subscribe #1", "#0 <- 1", "#1 <- 1", "#0 <- 2", "#0 <- 9", "#1 <- 9",
        "#1 <- 2",
      ])
    run.finish()
  }
}

/// Where a real source and the model first disagree.
struct Disagreement {
  /// The index of the step after which they disagreed.
  let step: Int
  let what: String
}

/// Runs `script` on a real `source` and on the model, step by step; where they first disagree,
/// if they do.
func firstDisagreement(running script: [ModelAction], on source: ModelSource) -> Disagreement? {
  let real = ModelRun { run -> any ModelWorld in
    switch source {
    case .emitter: EmitterWorld(run)
    case .currentValue: CurrentValueWorld(run, skipsEqualWrites: false)
    case .currentValueSkippingEqualWrites: CurrentValueWorld(run, skipsEqualWrites: true)
    }
  }
  let model = ModelRun { run -> any ModelWorld in
    switch source {
    case .emitter: MulticastModel(emitterFor: run)
    case .currentValue: MulticastModel(currentValueFor: run, skipsEqualWrites: false)
    case .currentValueSkippingEqualWrites:
      MulticastModel(currentValueFor: run, skipsEqualWrites: true)
    }
  }
  defer {
    real.finish()
    model.finish()
  }
  for (index, step) in (script + [.drain]).enumerated() {
    real.perform(step)
    model.perform(step)
    if let difference = difference(real.trace, model.trace) {
      return Disagreement(step: index, what: difference)
    }
    if real.observation != model.observation {
      return Disagreement(
        step: index,
        what: "The source says: \(real.observation)\nThe model says:  \(model.observation)")
    }
  }
  return nil
}

/// The first difference between two traces, with the events before it.
private func difference(_ real: [String], _ model: [String]) -> String? {
  guard real != model else { return nil }
  let common = zip(real, model).prefix { $0 == $1 }.count
  let context = real[..<common].suffix(8).joined(separator: ", ")
  return """
    After \(common) events in common (… \(context)):
    the source did:    \(real[common...].prefix(5).joined(separator: ", "))
    the model expects: \(model[common...].prefix(5).joined(separator: ", "))
    """
}

/// `script` with as many steps removed as can be while the source and the model still
/// disagree: removing steps one at a time, from the end, until no single removal keeps it
/// failing.
private func shrink(_ script: [ModelAction], on source: ModelSource) -> [ModelAction] {
  var script = script
  var removedOne = true
  while removedOne {
    removedOne = false
    var index = script.count - 1
    while index >= 0 {
      var candidate = script
      candidate.remove(at: index)
      if firstDisagreement(running: candidate, on: source) != nil {
        script = candidate
        removedOne = true
      }
      index -= 1
    }
  }
  return script
}
