import IndefiniteObservable

/// Our `Just`, by a name of its own: the files that import OpenCombine too see two `Just`s.
typealias JustOfOurs<T> = Just<T>
