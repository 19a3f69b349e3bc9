// The Producers module: event sources of the operating system as indefinite streams.
import IndefiniteObservable
