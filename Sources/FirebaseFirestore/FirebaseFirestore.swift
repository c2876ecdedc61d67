// Drop-in module name: app code that says `import FirebaseFirestore` compiles against Hearth.
@_exported import Hearth
