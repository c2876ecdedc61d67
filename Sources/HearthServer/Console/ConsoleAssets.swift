/// The console's web files (Console/UI), compiled into the binary by SwiftPM
/// (`resources: [.embedInCode("Console/UI")]` generates `PackageResources.<file_name>`), so
/// `hearth serve` needs nothing on disk. Adding a file to Console/UI means adding it here;
/// a test checks the two agree.
enum ConsoleAssets {
    struct File {
        let contentType: String
        let bytes: [UInt8]
    }

    /// The file served at `/ui/<name>` (`""` is the page itself).
    static func file(_ name: String) -> File? {
        switch name {
        case "", "index.html": File(contentType: "text/html; charset=utf-8", bytes: PackageResources.index_html)
        case "console.css": File(contentType: "text/css; charset=utf-8", bytes: PackageResources.console_css)
        case "console.js": script(PackageResources.console_js)
        case "api.js": script(PackageResources.api_js)
        case "values.js": script(PackageResources.values_js)
        case "data.js": script(PackageResources.data_js)
        case "query.js": script(PackageResources.query_js)
        case "requests.js": script(PackageResources.requests_js)
        case "rules.js": script(PackageResources.rules_js)
        case "listeners.js": script(PackageResources.listeners_js)
        case "database.js": script(PackageResources.database_js)
        case "faults.js": script(PackageResources.faults_js)
        default: nil
        }
    }

    /// Every file name, for the test that compares them with Console/UI.
    static let names = ["index.html", "console.css", "console.js", "api.js", "values.js", "data.js", "query.js",
                        "requests.js", "rules.js", "listeners.js", "database.js", "faults.js"]

    private static func script(_ bytes: [UInt8]) -> File {
        File(contentType: "text/javascript; charset=utf-8", bytes: bytes)
    }
}
