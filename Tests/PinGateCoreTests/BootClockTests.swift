import Testing
@testable import PinGateCore

@Suite("The boot clock and the boot id")
struct BootClockTests {
    @Test("the kernel's boot id text parses to its 16 bytes and prints back the same")
    func bootIDText() throws {
        let id = try #require(BootID(parsing: "b9b8d56f-1535-46aa-bf9c-8A1A10498584\n"))
        #expect(id.bytes == [0xb9, 0xb8, 0xd5, 0x6f, 0x15, 0x35, 0x46, 0xaa, 0xbf, 0x9c, 0x8a, 0x1a, 0x10, 0x49, 0x85, 0x84])
        #expect(id.description == "b9b8d56f-1535-46aa-bf9c-8a1a10498584")
    }

    @Test("text that is not a UUID, or the all-zero id, is not a boot id", arguments: [
        "", "b9b8d56f15351546aabf9c8a1a10498584", "b9b8d56f-1535-46aa-bf9c-8a1a1049858",
        "b9b8d56f-1535-46aa-bf9c-8a1a104985844", "g9b8d56f-1535-46aa-bf9c-8a1a10498584",
        "b9b8d56f-1535-46aa-bf9c8-a1a10498584", "00000000-0000-0000-0000-000000000000",
    ])
    func malformedBootID(text: String) {
        #expect(BootID(parsing: text) == nil)
    }

    @Test("boot-clock readings compare only within one boot and only forward")
    func comparingInstants() throws {
        let boot = try #require(BootID(bytes: Array(1...16)))
        let other = try #require(BootID(bytes: Array(2...17)))
        let failure = BootInstant(bootID: boot, seconds: 100)
        #expect(BootInstant(bootID: boot, seconds: 130).seconds(since: failure) == 30)
        #expect(BootInstant(bootID: boot, seconds: 90).seconds(since: failure) == nil)
        #expect(BootInstant(bootID: other, seconds: 130).seconds(since: failure) == nil)
    }

    @Test("the system clock reads this boot's id and a boot clock that does not go back")
    func systemBootClock() throws {
        let text = try #require(try readSmallFile(bootIDPath, limit: 64))
        let first = try #require(SystemClock().bootNow())
        let second = try #require(SystemClock().bootNow())
        #expect(first.bootID.description == text.prefix(36).lowercased())
        #expect(first.seconds > 0)
        #expect(second.seconds(since: first).map { $0 >= 0 } == true)
    }
}
