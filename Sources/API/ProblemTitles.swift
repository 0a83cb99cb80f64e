import Domain
import Hummingbird

/// Problem titles in the caller's language (`?lang=`, then `Accept-Language`, then the user's
/// own language when known, then English).
/// Details stay in English: they name fields and values for developers.
enum ProblemTitles {
    static let translations: [String: [Language: String]] = [
        "Malformed request": [.ru: "Некорректный запрос", .sr: "Neispravan zahtev"],
        "Not found": [.ru: "Не найдено", .sr: "Nije pronađeno"],
        "Method not allowed": [.ru: "Метод не разрешён", .sr: "Metoda nije dozvoljena"],
        "Conflict": [.ru: "Конфликт", .sr: "Sukob"],
        "Request body too large": [.ru: "Слишком большой запрос", .sr: "Zahtev je prevelik"],
        "Invalid request": [.ru: "Недопустимый запрос", .sr: "Nevažeći zahtev"],
        "Database unavailable": [.ru: "База данных недоступна", .sr: "Baza podataka nije dostupna"],
        "Internal error": [.ru: "Внутренняя ошибка", .sr: "Interna greška"],
        "Invalid credentials": [.ru: "Неверные учётные данные", .sr: "Pogrešni podaci za prijavu"],
        "Too many attempts": [.ru: "Слишком много попыток", .sr: "Previše pokušaja"],
        "Unauthenticated": [.ru: "Требуется вход", .sr: "Potrebna je prijava"],
        "Forbidden": [.ru: "Доступ запрещён", .sr: "Zabranjeno"],
        "Precondition failed": [.ru: "Версия устарела", .sr: "Verzija je zastarela"],
        "Not ready": [.ru: "Не готов", .sr: "Nije spreman"],
        "Erasure unavailable": [.ru: "Удаление сейчас невозможно", .sr: "Brisanje trenutno nije moguće"],
    ]

    static func localize(_ problem: Problem, for request: Request, userLanguage: Language? = nil) -> Problem {
        let language = Language.resolve(
            query: request.uri.queryParameters.get("lang"), acceptLanguage: request.headers[.acceptLanguage], userLanguage: userLanguage)
        guard language != .en, let title = translations[problem.title]?[language] else { return problem }
        var localized = problem
        localized.title = title
        return localized
    }
}
