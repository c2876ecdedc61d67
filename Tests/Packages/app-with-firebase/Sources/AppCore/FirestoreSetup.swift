// App code, against the real SDK's module.
import DataLayer
import FirebaseFirestore

public enum FirestoreSetup {
    /// Points the SDK at an emulator (`host:port`), as the app's test configuration does.
    public static func useEmulator(_ db: Firestore, at address: String) {
        let settings = db.settings
        settings.host = address
        settings.isSSLEnabled = false
        db.settings = settings
    }

    /// The app's data layer, on the SDK's database.
    public static func goals(_ db: Firestore) -> GoalStore { GoalStore(db: db) }
}
