// Drop-in module name: app code that says `import FirebaseFirestore` compiles against Hearth.
// Foundation comes with it, as the SDK's module (an Objective-C umbrella) brings it: Google's
// own snippets use `Date` and `Calendar` after importing only FirebaseFirestore.
@_exported import Foundation
@_exported import Hearth
// The SDK's module makes Foundation visible (its Objective-C headers import it), so app
// files use `URL`, `UUID`, `Data`, `NSError`… with `import FirebaseFirestore` alone.
@_exported import Foundation
