import Foundation
import Basics
import XCTest

final class DurationTextTests: XCTestCase {
    func testValidDurations() {
        let cases: [(String, Duration)] = [
            ("90s", .seconds(90)),
            ("15m", .seconds(900)),
            ("1h30m", .seconds(5_400)),
            ("7d", .seconds(604_800)),
            ("1d2h3m4s", .seconds(93_784)),
        ]
        for (text, duration) in cases {
            XCTAssertEqual(DurationText.parse(text), duration, "'\(text)'")
        }
    }

    func testInvalidDurations() {
        let cases = [
            "", "15", "m", "1.5h", "15 m", " 15m", "15m ", "1w", "-1s", "+1s", "15M", "1h30", "h1",
            "99999999999999999999s", "106751991167301d",
        ]
        for text in cases {
            XCTAssertNil(DurationText.parse(text), "'\(text)' should not parse")
        }
    }

    func testDurationsAreBoundedAtAHundredYears() {
        XCTAssertEqual(DurationText.parse("36500d"), DurationText.maximum)
        XCTAssertEqual(DurationText.parse("36499d24h"), DurationText.maximum)
        for text in ["36500d1s", "36501d", "106751991167300d", "9300000000000000s", "99999999999999999999s", "1s99999999999999999999d"] {
            XCTAssertNil(DurationText.parse(text), text)
            XCTAssertTrue(DurationText.isTooLong(text), text)
        }
        for text in ["36500d", "1h", "", "99999999999999999999", "1w", "0s"] {
            XCTAssertFalse(DurationText.isTooLong(text), text)
        }
        // Whatever parses converts to milliseconds since 1970 without trapping.
        XCTAssertLessThan(Date().timeIntervalSince1970 + DurationText.maximum.inSeconds, 1e15)
    }

    func testZeroIsRefused() {
        XCTAssertNil(DurationText.parse("0s"))
        XCTAssertNil(DurationText.parse("0m0s"))
    }

    func testFormat() {
        let cases: [(Duration, String)] = [
            (.seconds(0), "0s"),
            (.seconds(45), "45s"),
            (.seconds(90), "1m30s"),
            (.seconds(900), "15m"),
            (.seconds(3_600), "1h"),
            (.seconds(5_400), "1h30m"),
            (.seconds(86_400), "1d"),
            (.seconds(86_401), "1d1s"),
            (.seconds(93_784), "1d2h3m4s"),
        ]
        for (duration, text) in cases {
            XCTAssertEqual(DurationText.format(duration), text)
        }
    }

    func testFormatParsesBack() {
        for seconds: Int64 in [1, 59, 61, 3_599, 3_601, 90_061, 1_209_600] {
            let text = DurationText.format(.seconds(seconds))
            XCTAssertEqual(DurationText.parse(text), .seconds(seconds), text)
        }
    }
}
