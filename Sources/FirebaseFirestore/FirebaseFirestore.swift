// Drop-in module name: app code that says `import FirebaseFirestore` compiles against Hearth.
@_exported import Hearth
// The SDK's module makes Foundation visible (its Objective-C headers import it), so app
// files use `URL`, `UUID`, `Data`, `NSError`… with `import FirebaseFirestore` alone.
@_exported import Foundation
