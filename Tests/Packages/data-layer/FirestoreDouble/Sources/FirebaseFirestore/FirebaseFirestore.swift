// `import FirebaseFirestore` is Hearth's embedded double (and Foundation, which the SDK's
// module brings along too).
@_exported import Foundation
@_exported import Hearth
