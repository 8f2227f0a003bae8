import CourierMacros
import Foundation
import Testing

@Suite("@Mockable mocks")
struct MockTests {
    @Test("a result is returned and every call is recorded with its arguments")
    func resultAndCalls() async throws {
        let mock = PostsServiceMock()
        mock.postResult = .success(Post(id: 7, title: "Hi"))

        let post = try await mock.post(id: 7, author: "J")
        _ = try await mock.post(id: 8, author: "K", _queryItems: [URLQueryItem(name: "page", value: "2")])

        #expect(post == Post(id: 7, title: "Hi"))
        #expect(mock.postCallCount == 2)
        #expect(mock.postCalls.map(\.id) == [7, 8])
        #expect(mock.postCalls.map(\.author) == ["J", "K"])
        #expect(mock.postCalls.last?._queryItems == [URLQueryItem(name: "page", value: "2")])
    }

    @Test("a handler answers from the call's arguments")
    func handler() async throws {
        let mock = PostsServiceMock()
        mock.postHandler = { call in Post(id: call.id, title: call.author) }

        let post = try await mock.post(id: 3, author: "Ada")

        #expect(post == Post(id: 3, title: "Ada"))
    }

    @Test("a failure result is thrown")
    func failure() async throws {
        struct Boom: Error {}
        let mock = EndpointServiceMock()
        mock.getPostsResult = .failure(Boom())

        await #expect(throws: Boom.self) { _ = try await mock.getPosts() }
        #expect(mock.getPostsCallCount == 1)
    }

    @Test("an unset method throws 'unimplemented: …' and reports a test issue, never traps")
    func unimplemented() async throws {
        let mock = PostsServiceMock()

        await withKnownIssue(
            "the mock reports the unset method",
            { _ = try? await mock.post(id: 1, author: "J") },
            matching: { issue in
                String(describing: issue).contains("unimplemented: PostsServiceMock.post(id:author:)")
            })
        #expect(mock.postCallCount == 1)
    }

    @Test("the thrown error names the method")
    func unimplementedError() async throws {
        let mock = LibraryServiceMock()
        await withKnownIssue {
            do {
                try await mock.remove(id: 1)
                Issue.record("expected an error")
            } catch let error as MockUnimplementedError {
                #expect(error.description == "unimplemented: LibraryServiceMock.remove(id:)")
                throw error
            }
        }
    }

    @Test("uploads record their payload description; overloaded names get their labels")
    func uploadsAndOverloads() async throws {
        let mock = MyEndpointServiceMock()
        mock.uploadImageResult = .success(Data("ok".utf8))
        mock.getPostIdResult = .success(Post(id: 1, title: "a"))
        mock.getPostIdAuthorResult = .success(Post(id: 2, title: "b"))
        let payload = PayloadDescription(name: "avatar", fileName: "a.png")

        _ = try await mock.uploadImage(pngBytes, _payloadDescription: payload)
        let one = try await mock.getPost(id: 1)
        let two = try await mock.getPost(id: 2, author: "x")

        #expect(mock.uploadImageCalls.first?._payloadDescription == payload)
        #expect(mock.uploadImageCalls.first?.image == pngBytes)
        #expect(one.id == 1 && two.id == 2)
    }

    @Test("a mock is Sendable: concurrent calls are all recorded")
    func concurrentCalls() async throws {
        let mock = PostsServiceMock()
        mock.allResult = .success([])

        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<100 {
                group.addTask { _ = try await mock.all() }
            }
            try await group.waitForAll()
        }

        #expect(mock.allCallCount == 100)
    }

    @Test("a mock-only protocol gets the same members without the service overloads")
    func mockOnly() async throws {
        let clock = ClockServiceMock()
        let date = Date(timeIntervalSince1970: 0)
        clock.nowResult = .success(date)
        clock.sleepResult = .success(())

        #expect(try await clock.now() == date)
        try await clock.sleep(seconds: 2)
        #expect(clock.sleepCalls.map(\.seconds) == [2])
    }

    @Test("used through the protocol, a mock stands in for the service")
    func throughTheProtocol() async throws {
        let mock = PostsServiceMock()
        mock.allResult = .success([Post(id: 1, title: "a")])
        let posts: any Posts = mock

        #expect(try await posts.all().count == 1)
    }
}
