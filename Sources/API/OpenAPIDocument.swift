/// The OpenAPI 3.1 document served at `/openapi.yaml`, written by hand. A test fails when a
/// registered route is missing from it (or it lists a route that does not exist).
enum OpenAPIDocument {
    static let yaml = #"""
openapi: 3.1.0
info:
  title: lifelog API
  version: 0.1.0
  description: >
    Self-hosted backend for a personal life tracker. JSON with snake_case keys; errors are
    RFC 9457 problem+json. POST accepts Idempotency-Key; PATCH accepts If-Match with the ETag.
servers:
  - url: http://127.0.0.1:8080
components:
  securitySchemes:
    bearer:
      type: http
      scheme: bearer
      bearerFormat: JWT
      description: Access token from login, register or refresh (15 minutes).
    deviceKey:
      type: apiKey
      in: header
      name: X-API-Key
      description: Device key (also accepted as Authorization Bearer or ?key=); ingestion routes only.
  parameters:
    IdempotencyKey:
      name: Idempotency-Key
      in: header
      required: false
      description: Replays the first answer to the same request; the same key with another request is 422
      schema: { type: string, minLength: 1, maxLength: 200 }
    IfMatch:
      name: If-Match
      in: header
      required: false
      description: 'The one ETag the change is based on (or *; a weak W/ form names the same version); another version or an unknown tag answers 412; a list is 400'
      schema: { type: string, pattern: '^(\*|(W/)?"?[0-9]{1,18}"?)$', example: '"3"' }
    Limit:
      name: limit
      in: query
      required: false
      schema: { type: integer, minimum: 1, maximum: 100, default: 50 }
    Cursor:
      name: cursor
      in: query
      required: false
      description: The opaque next_cursor of the previous page
      schema: { type: string }
    Lang:
      name: lang
      in: query
      required: false
      schema: { type: string, enum: [en, ru, sr] }
  responses:
    Problem:
      description: An RFC 9457 problem
      content:
        application/problem+json:
          schema: { $ref: '#/components/schemas/Problem' }
  schemas:
    TimeOfDay:
      type: string
      pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$'
      description: A time of day as HH:MM, 24-hour
      example: "08:00"
    Name:
      type: string
      minLength: 1
      maxLength: 100
      pattern: '[^\s\x00-\x1F\x7F-\x9F]'
      not: { pattern: '[\x00-\x1F\x7F-\x9F]' }
      description: 1 to 100 characters once surrounding whitespace is trimmed; no control characters
    TimeZone:
      type: string
      description: An IANA time zone name the server knows (or UTC); fixed offsets and abbreviations are refused
      example: Europe/Belgrade
    Currency:
      type: string
      pattern: '^[A-Z]{3}$'
      description: An ISO 4217 code the server knows
      example: EUR
    Language:
      type: string
      enum: [en, ru, sr]
    ReminderKind:
      type: string
      enum: [morning_digest, evening_nudge, task_due, savings_payment_due]
    DeviceKind:
      type: string
      enum: [watch, ring, phone, scale, app, automation, other]
    Problem:
      type: object
      required: [type, title, status]
      properties:
        type: { type: string, format: uri }
        title: { type: string }
        status: { type: integer }
        detail: { type: string }
        errors:
          type: array
          items:
            type: object
            required: [field, message]
            properties:
              field: { type: string }
              message: { type: string }
    User:
      type: object
      required: [id, email, name, timezone, day_start_hour, week_start, currency, language, reminders, created_at, version]
      properties:
        id: { type: string, format: uuid }
        email: { type: string, format: email }
        name: { type: string }
        timezone: { type: string, description: IANA time zone name, example: Europe/Belgrade }
        day_start_hour: { type: integer, minimum: 0, maximum: 23 }
        week_start: { type: integer, minimum: 1, maximum: 7, description: ISO weekday, 1 = Monday }
        currency: { type: string, description: ISO 4217 code }
        language: { $ref: '#/components/schemas/Language' }
        reminders:
          type: object
          required: [morning_time, evening_time, enabled_kinds]
          properties:
            morning_time: { $ref: '#/components/schemas/TimeOfDay' }
            evening_time: { $ref: '#/components/schemas/TimeOfDay' }
            enabled_kinds:
              type: array
              items: { $ref: '#/components/schemas/ReminderKind' }
        created_at: { type: string, format: date-time }
        version: { type: integer, description: Also sent as the ETag }
    TokenPair:
      type: object
      required: [access_token, refresh_token, token_type, expires_in]
      properties:
        access_token: { type: string }
        refresh_token: { type: string, description: Opaque; spent on use }
        token_type: { type: string, enum: [Bearer] }
        expires_in: { type: integer, description: Seconds }
        user: { $ref: '#/components/schemas/User' }
    Device:
      type: object
      required: [id, name, kind, created_at]
      properties:
        id: { type: string, format: uuid }
        name: { type: string }
        kind: { $ref: '#/components/schemas/DeviceKind' }
        created_at: { type: string, format: date-time }
        last_used_at: { type: string, format: date-time }
        api_key: { type: string, description: Only in the answer that created the device }
    HabitSchedule:
      description: When the habit is due; keys other than those of its type are ignored
      oneOf:
        - title: daily
          type: object
          required: [type]
          properties:
            type: { type: string, const: daily }
        - title: weekdays
          type: object
          required: [type, days]
          properties:
            type: { type: string, const: weekdays }
            days:
              type: array
              minItems: 1
              items: { type: integer, minimum: 1, maximum: 7 }
              description: ISO weekdays, 1 = Monday; a repeated day counts once
        - title: times_per_week
          type: object
          required: [type, count]
          properties:
            type: { type: string, const: times_per_week }
            count: { type: integer, minimum: 1, maximum: 7, description: Distinct days in each calendar week }
        - title: every_n_days
          type: object
          required: [type, n]
          properties:
            type: { type: string, const: every_n_days }
            n: { type: integer, minimum: 2, maximum: 365, description: Counted from the start date }
        - title: monthly
          type: object
          required: [type, day]
          properties:
            type: { type: string, const: monthly }
            day:
              description: A day past the month's end falls on its last day
              oneOf:
                - { type: integer, minimum: 1, maximum: 31 }
                - { type: string, const: last }
    Habit:
      type: object
      required: [id, name, kind, schedule, start_date, archived, date, due_today, completed_today, current_streak, best_streak, version]
      properties:
        id: { type: string, format: uuid }
        name: { type: string }
        emoji: { type: string }
        color: { type: string }
        kind: { type: string, enum: [boolean, numeric] }
        target: { type: number }
        unit: { type: string }
        schedule: { $ref: '#/components/schemas/HabitSchedule' }
        start_date: { type: string, format: date }
        reminder_time: { $ref: '#/components/schemas/TimeOfDay' }
        archived: { type: boolean }
        date: { type: string, format: date, description: The date the state is for (default the user's logical today) }
        due_today: { type: boolean }
        completed_today: { type: boolean }
        today_value: { type: number }
        period_progress:
          type: object
          properties:
            done: { type: integer }
            target: { type: integer }
            start: { type: string, format: date }
            end: { type: string, format: date }
        current_streak: { type: integer }
        best_streak: { type: integer }
        completion_rate_30d: { type: number }
        next_due_date: { type: string, format: date }
        version: { type: integer }
    HabitList:
      type: object
      required: [items]
      properties:
        items: { type: array, items: { $ref: '#/components/schemas/Habit' } }
    Task:
      type: object
      required: [id, title, priority, completed, overdue, due_today, created_at, version]
      properties:
        id: { type: string, format: uuid }
        title: { type: string }
        notes: { type: string }
        priority: { type: integer, minimum: 1, maximum: 3, description: 1 low, 3 high }
        due_date: { type: string, format: date }
        due_time: { $ref: '#/components/schemas/TimeOfDay' }
        repeat: { $ref: '#/components/schemas/TaskRepeat' }
        completed: { type: boolean }
        completed_at: { type: string, format: date-time }
        next_task_id: { type: string, format: uuid, description: The occurrence this completion created }
        overdue: { type: boolean }
        due_today: { type: boolean }
        created_at: { type: string, format: date-time }
        version: { type: integer, description: Also sent as the ETag }
    TaskTitle:
      type: string
      minLength: 1
      maxLength: 200
      pattern: '[^\s\x00-\x1F\x7F-\x9F]'
      not: { pattern: '[\x00-\x1F\x7F-\x9F]' }
      description: 1 to 200 characters, not only whitespace; no control characters
    TaskNotes:
      type: string
      maxLength: 10000
      pattern: '^[^\x00]*$'
      description: At most 10000 characters; no NUL characters
    TaskRepeat:
      type: object
      required: [every]
      description: Every interval days, weeks or months, anchored to the first due date
      properties:
        every: { type: string, enum: [day, week, month] }
        interval: { type: integer, minimum: 1, maximum: 365, default: 1 }
    TaskDraft:
      type: object
      required: [title]
      properties:
        title: { $ref: '#/components/schemas/TaskTitle' }
        notes: { $ref: '#/components/schemas/TaskNotes' }
        priority: { type: integer, minimum: 1, maximum: 3, default: 2, description: 1 low, 3 high }
        due_date: { type: string, format: date }
        due_time: { $ref: '#/components/schemas/TimeOfDay' }
        repeat: { $ref: '#/components/schemas/TaskRepeat' }
      dependentRequired:
        due_time: [due_date]
        repeat: [due_date]
    TaskChange:
      type: object
      description: Like JSON Merge Patch, absent fields stay and null clears; how a task repeats cannot be changed (create a new task)
      properties:
        title: { $ref: '#/components/schemas/TaskTitle' }
        notes:
          anyOf: [{ $ref: '#/components/schemas/TaskNotes' }, { type: 'null' }]
        priority: { type: integer, minimum: 1, maximum: 3, description: 1 low, 3 high }
        due_date:
          type: [string, 'null']
          format: date
          description: null clears the due date and its time; a repeating task keeps its date (422)
        due_time:
          anyOf: [{ $ref: '#/components/schemas/TimeOfDay' }, { type: 'null' }]
          description: Needs a due_date, sent here or already on the task; null clears it
        repeat: { type: 'null', description: Only null (no change) is accepted }
    Status:
      type: object
      required: [status]
      properties:
        status: { type: string }
        database: { type: string }
        migrations: { type: string }
paths:
  /healthz:
    get:
      summary: The process answers
      responses:
        '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Status' } } } }
        default: { $ref: '#/components/responses/Problem' }
  /readyz:
    get:
      summary: Database reachable and migrations applied
      responses:
        '200': { description: Ready, content: { application/json: { schema: { $ref: '#/components/schemas/Status' } } } }
        '503': { $ref: '#/components/responses/Problem' }
        default: { $ref: '#/components/responses/Problem' }
  /metrics:
    get:
      summary: Prometheus text format
      responses:
        '200': { description: Metrics, content: { text/plain: { schema: { type: string } } } }
        default: { $ref: '#/components/responses/Problem' }
  /openapi.yaml:
    get:
      summary: This document
      responses:
        '200': { description: OpenAPI 3.1, content: { application/yaml: { schema: { type: string } } } }
        default: { $ref: '#/components/responses/Problem' }
  /api/v1/auth/register:
    post:
      summary: Create an account and log in
      parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }]
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [email, password, name, timezone]
              properties:
                email:
                  type: string
                  format: email
                  maxLength: 254
                  pattern: '^[^@\s\x00-\x1F\x7F-\x9F]+@[^@\s.\x00-\x1F\x7F-\x9F][^@\s\x00-\x1F\x7F-\x9F]*\.[^@\s\x00-\x1F\x7F-\x9F]*[^@\s.\x00-\x1F\x7F-\x9F]$'
                  description: 'Trimmed and lowercased; one @, a domain with a dot inside, no whitespace or control characters'
                password:
                  type: string
                  minLength: 10
                  maxLength: 72
                  pattern: '^[^\x00]*$'
                  description: At least 10 characters and at most 72 bytes of UTF-8; no NUL
                name: { $ref: '#/components/schemas/Name' }
                timezone: { $ref: '#/components/schemas/TimeZone' }
                language: { $ref: '#/components/schemas/Language' }
                currency:
                  type: string
                  pattern: '^[A-Za-z]{3}$'
                  default: EUR
                  description: An ISO 4217 code the server knows (uppercased here)
      responses:
        '201': { description: Created, content: { application/json: { schema: { $ref: '#/components/schemas/TokenPair' } } } }
        '409': { $ref: '#/components/responses/Problem' }
        '422': { $ref: '#/components/responses/Problem' }
        default: { $ref: '#/components/responses/Problem' }
  /api/v1/auth/login:
    post:
      summary: Log in with email and password
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [email, password]
              properties:
                email: { type: string }
                password: { type: string }
      responses:
        '200': { description: Logged in, content: { application/json: { schema: { $ref: '#/components/schemas/TokenPair' } } } }
        '401': { $ref: '#/components/responses/Problem' }
        '429': { $ref: '#/components/responses/Problem' }
        default: { $ref: '#/components/responses/Problem' }
  /api/v1/auth/refresh:
    post:
      summary: Spend a refresh token for a new pair; a reused token revokes its whole family
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [refresh_token]
              properties:
                refresh_token: { type: string }
      responses:
        '200': { description: New pair, content: { application/json: { schema: { $ref: '#/components/schemas/TokenPair' } } } }
        '401': { $ref: '#/components/responses/Problem' }
        default: { $ref: '#/components/responses/Problem' }
  /api/v1/auth/logout:
    post:
      summary: End this session (its refresh-token family)
      security: [{ bearer: [] }]
      responses:
        '204': { description: Logged out }
        '401': { $ref: '#/components/responses/Problem' }
        default: { $ref: '#/components/responses/Problem' }
  /api/v1/auth/logout-all:
    post:
      summary: End every session of the user
      security: [{ bearer: [] }]
      responses:
        '204': { description: Logged out everywhere }
        '401': { $ref: '#/components/responses/Problem' }
        default: { $ref: '#/components/responses/Problem' }
  /api/v1/me:
    get:
      summary: The current user
      security: [{ bearer: [] }]
      responses:
        '200':
          description: The user; ETag is its version
          headers: { ETag: { schema: { type: string } } }
          content: { application/json: { schema: { $ref: '#/components/schemas/User' } } }
        '401': { $ref: '#/components/responses/Problem' }
        '403': { $ref: '#/components/responses/Problem' }
        default: { $ref: '#/components/responses/Problem' }
    patch:
      summary: Change profile and reminder settings (absent fields stay)
      security: [{ bearer: [] }]
      parameters: [{ $ref: '#/components/parameters/IfMatch' }]
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              properties:
                name: { $ref: '#/components/schemas/Name' }
                timezone: { $ref: '#/components/schemas/TimeZone' }
                day_start_hour: { type: integer, minimum: 0, maximum: 23 }
                week_start: { type: integer, minimum: 1, maximum: 7, description: ISO weekday, 1 = Monday }
                currency: { $ref: '#/components/schemas/Currency' }
                language: { $ref: '#/components/schemas/Language' }
                reminders:
                  type: object
                  properties:
                    morning_time: { $ref: '#/components/schemas/TimeOfDay' }
                    evening_time: { $ref: '#/components/schemas/TimeOfDay' }
                    enabled_kinds:
                      type: array
                      items: { $ref: '#/components/schemas/ReminderKind' }
      responses:
        '200': { description: Changed, content: { application/json: { schema: { $ref: '#/components/schemas/User' } } } }
        '412': { $ref: '#/components/responses/Problem' }
        '422': { $ref: '#/components/responses/Problem' }
        default: { $ref: '#/components/responses/Problem' }
  /api/v1/me/password:
    post:
      summary: Change the password; ends every session and returns a new pair for this one
      security: [{ bearer: [] }]
      parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }]
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [current_password, new_password]
              properties:
                current_password: { type: string }
                new_password:
                  type: string
                  minLength: 10
                  maxLength: 72
                  pattern: '^[^\x00]*$'
                  description: At least 10 characters and at most 72 bytes of UTF-8; no NUL
      responses:
        '200': { description: Changed, content: { application/json: { schema: { $ref: '#/components/schemas/TokenPair' } } } }
        '422': { $ref: '#/components/responses/Problem' }
        default: { $ref: '#/components/responses/Problem' }
  /api/v1/devices:
    get:
      summary: Active devices (keys are never shown again)
      security: [{ bearer: [] }]
      parameters:
        - { $ref: '#/components/parameters/Limit' }
        - { $ref: '#/components/parameters/Cursor' }
      responses:
        '200':
          description: A page of devices
          content:
            application/json:
              schema:
                type: object
                required: [items]
                properties:
                  items: { type: array, items: { $ref: '#/components/schemas/Device' } }
                  next_cursor: { type: string }
        default: { $ref: '#/components/responses/Problem' }
    post:
      summary: Create a device key (shown once)
      security: [{ bearer: [] }]
      parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }]
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [name, kind]
              properties:
                name: { $ref: '#/components/schemas/Name' }
                kind: { $ref: '#/components/schemas/DeviceKind' }
      responses:
        '201': { description: Created, content: { application/json: { schema: { $ref: '#/components/schemas/Device' } } } }
        '422': { $ref: '#/components/responses/Problem' }
        default: { $ref: '#/components/responses/Problem' }
  /api/v1/devices/{id}:
    delete:
      summary: Revoke a device and its key
      security: [{ bearer: [] }]
      parameters:
        - { name: id, in: path, required: true, schema: { type: string, format: uuid } }
      responses:
        '204': { description: Revoked }
        '404': { $ref: '#/components/responses/Problem' }
        default: { $ref: '#/components/responses/Problem' }
  /api/v1/devices/pairing-codes:
    post:
      summary: A single-use pairing code, valid 10 minutes
      security: [{ bearer: [] }]
      responses:
        '201':
          description: Created
          content:
            application/json:
              schema:
                type: object
                required: [code, expires_at]
                properties:
                  code: { type: string, minLength: 8, maxLength: 8 }
                  expires_at: { type: string, format: date-time }
        default: { $ref: '#/components/responses/Problem' }
  /api/v1/pair:
    post:
      summary: Trade a pairing code for a device key (no login)
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [code, device_name]
              properties:
                code: { type: string, description: Case, spaces and dashes do not matter }
                device_name: { $ref: '#/components/schemas/Name' }
                kind: { allOf: [{ $ref: '#/components/schemas/DeviceKind' }], default: other }
      responses:
        '201': { description: Paired, content: { application/json: { schema: { $ref: '#/components/schemas/Device' } } } }
        '401': { $ref: '#/components/responses/Problem' }
        '429': { $ref: '#/components/responses/Problem' }
        default: { $ref: '#/components/responses/Problem' }
  /api/v1/habits:
    get:
      summary: Every active habit with its state on a date
      security: [{ bearer: [] }]
      parameters:
        - { name: date, in: query, required: false, description: 'Default the logical today; at most a year ahead', schema: { type: string, format: date } }
      responses:
        '200': { description: Habits, content: { application/json: { schema: { $ref: '#/components/schemas/HabitList' } } } }
        default: { $ref: '#/components/responses/Problem' }
    post:
      summary: Create a habit
      security: [{ bearer: [] }]
      parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }]
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [name, kind, schedule]
              properties:
                name: { $ref: '#/components/schemas/Name' }
                emoji: { type: string, maxLength: 16, pattern: '^[^\x00-\x1F\x7F-\x9F]*$' }
                color: { type: string, maxLength: 32, pattern: '^[^\x00-\x1F\x7F-\x9F]*$' }
                kind: { type: string, enum: [boolean, numeric] }
                target: { type: number, exclusiveMinimum: 0, maximum: 1000000000, description: 'Required for numeric habits, refused for boolean ones' }
                unit: { type: string, maxLength: 32, pattern: '^[^\x00-\x1F\x7F-\x9F]*$' }
                schedule: { $ref: '#/components/schemas/HabitSchedule' }
                start_date: { type: string, format: date, description: 'Default today; from January 1st ten years back to a year after today' }
                reminder_time: { $ref: '#/components/schemas/TimeOfDay' }
              oneOf:
                - title: boolean
                  properties: { kind: { const: boolean } }
                  not: { required: [target] }
                - title: numeric
                  properties: { kind: { const: numeric } }
                  required: [target]
      responses:
        '201': { description: Created, content: { application/json: { schema: { $ref: '#/components/schemas/Habit' } } } }
        '422': { $ref: '#/components/responses/Problem' }
        default: { $ref: '#/components/responses/Problem' }
  /api/v1/habits/{id}:
    parameters:
      - { name: id, in: path, required: true, schema: { type: string, format: uuid } }
    get:
      summary: One habit with its state
      security: [{ bearer: [] }]
      parameters:
        - { name: date, in: query, required: false, description: 'Default the logical today; at most a year ahead', schema: { type: string, format: date } }
      responses:
        '200': { description: The habit, content: { application/json: { schema: { $ref: '#/components/schemas/Habit' } } } }
        '404': { $ref: '#/components/responses/Problem' }
        default: { $ref: '#/components/responses/Problem' }
    patch:
      summary: Change a habit; a schedule change applies from effective_from (default today)
      security: [{ bearer: [] }]
      parameters: [{ $ref: '#/components/parameters/IfMatch' }]
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              properties:
                name: { $ref: '#/components/schemas/Name' }
                emoji: { type: [string, 'null'], maxLength: 16, pattern: '^[^\x00-\x1F\x7F-\x9F]*$', description: null clears it }
                color: { type: [string, 'null'], maxLength: 32, pattern: '^[^\x00-\x1F\x7F-\x9F]*$', description: null clears it }
                target: { type: number, exclusiveMinimum: 0, maximum: 1000000000, description: Numeric habits only }
                unit: { type: [string, 'null'], maxLength: 32, pattern: '^[^\x00-\x1F\x7F-\x9F]*$', description: null clears it }
                reminder_time: { anyOf: [{ $ref: '#/components/schemas/TimeOfDay' }, { type: 'null' }], description: null removes the reminder }
                schedule: { $ref: '#/components/schemas/HabitSchedule' }
                effective_from: { type: string, format: date, description: 'At most a year after today; a date before the start means the start' }
      responses:
        '200': { description: Changed, content: { application/json: { schema: { $ref: '#/components/schemas/Habit' } } } }
        '412': { $ref: '#/components/responses/Problem' }
        '422': { $ref: '#/components/responses/Problem' }
        default: { $ref: '#/components/responses/Problem' }
    delete:
      summary: Archive a habit (history stays)
      security: [{ bearer: [] }]
      responses:
        '204': { description: Archived }
        '404': { $ref: '#/components/responses/Problem' }
        default: { $ref: '#/components/responses/Problem' }
  /api/v1/habits/{id}/restore:
    post:
      summary: Restore an archived habit
      security: [{ bearer: [] }]
      parameters:
        - { name: id, in: path, required: true, schema: { type: string, format: uuid } }
      responses:
        '200': { description: Restored, content: { application/json: { schema: { $ref: '#/components/schemas/Habit' } } } }
        default: { $ref: '#/components/responses/Problem' }
  /api/v1/habits/{id}/logs:
    parameters:
      - { name: id, in: path, required: true, schema: { type: string, format: uuid } }
    post:
      summary: Log the habit for a date (default the logical today); answers with its new state
      security: [{ bearer: [] }]
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              properties:
                date: { type: string, format: date, description: "Default today; not in the future nor before the habit's start date" }
                value: { type: number, exclusiveMinimum: 0, maximum: 1000000000, description: Required for numeric habits }
      responses:
        '201': { description: Logged, content: { application/json: { schema: { $ref: '#/components/schemas/Habit' } } } }
        '422': { $ref: '#/components/responses/Problem' }
        default: { $ref: '#/components/responses/Problem' }
    get:
      summary: The day totals between from and to
      security: [{ bearer: [] }]
      parameters:
        - { name: from, in: query, required: false, description: 'Default 30 days before to; not after to, at most 800 days before it', schema: { type: string, format: date } }
        - { name: to, in: query, required: false, description: Default today, schema: { type: string, format: date } }
      responses:
        '200':
          description: Logs
          content:
            application/json:
              schema:
                type: object
                properties:
                  items: { type: array, items: { type: object, properties: { date: { type: string, format: date }, value: { type: number } } } }
        default: { $ref: '#/components/responses/Problem' }
  /api/v1/habits/{id}/logs/{date}:
    delete:
      summary: Remove the logs of a date
      security: [{ bearer: [] }]
      parameters:
        - { name: id, in: path, required: true, schema: { type: string, format: uuid } }
        - { name: date, in: path, required: true, schema: { type: string, format: date } }
      responses:
        '200': { description: Removed, content: { application/json: { schema: { $ref: '#/components/schemas/Habit' } } } }
        default: { $ref: '#/components/responses/Problem' }
  /api/v1/habits/{id}/freezes:
    post:
      summary: Excuse a date range (vacation, illness)
      security: [{ bearer: [] }]
      parameters:
        - { name: id, in: path, required: true, schema: { type: string, format: uuid } }
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [from, to]
              properties:
                from: { type: string, format: date }
                to: { type: string, format: date, description: Not before from }
                reason: { type: [string, 'null'], maxLength: 200, pattern: '^[^\x00-\x1F\x7F-\x9F]*$' }
      responses:
        '201':
          description: Frozen
          content:
            application/json:
              schema:
                type: object
                properties:
                  freeze_id: { type: string, format: uuid }
                  habit: { $ref: '#/components/schemas/Habit' }
        default: { $ref: '#/components/responses/Problem' }
  /api/v1/habits/{id}/freezes/{freeze_id}:
    delete:
      summary: Remove a freeze
      security: [{ bearer: [] }]
      parameters:
        - { name: id, in: path, required: true, schema: { type: string, format: uuid } }
        - { name: freeze_id, in: path, required: true, schema: { type: string, format: uuid } }
      responses:
        '200': { description: Removed, content: { application/json: { schema: { $ref: '#/components/schemas/Habit' } } } }
        default: { $ref: '#/components/responses/Problem' }
  /api/v1/habits/{id}/history:
    get:
      summary: Each date (or week) between from and to with its status, for heatmaps
      security: [{ bearer: [] }]
      parameters:
        - { name: id, in: path, required: true, schema: { type: string, format: uuid } }
        - { name: from, in: query, required: false, description: 'Default 30 days before to; not after to, at most 800 days before it', schema: { type: string, format: date } }
        - { name: to, in: query, required: false, description: Default today, schema: { type: string, format: date } }
      responses:
        '200':
          description: Periods
          content:
            application/json:
              schema:
                type: object
                properties:
                  items:
                    type: array
                    items:
                      type: object
                      properties:
                        start: { type: string, format: date }
                        end: { type: string, format: date }
                        status: { type: string, enum: [satisfied, excused, missed, pending, not_scheduled] }
        default: { $ref: '#/components/responses/Problem' }
  /api/v1/tasks:
    get:
      summary: Tasks by due date then priority; today = due today or overdue
      security: [{ bearer: [] }]
      parameters:
        - { name: filter, in: query, required: false, schema: { type: string, enum: [open, today, overdue, completed, all], default: open } }
        - { $ref: '#/components/parameters/Limit' }
        - { $ref: '#/components/parameters/Cursor' }
      responses:
        '200':
          description: A page of tasks
          content:
            application/json:
              schema:
                type: object
                required: [items]
                properties:
                  items: { type: array, items: { $ref: '#/components/schemas/Task' } }
                  next_cursor: { type: string }
        default: { $ref: '#/components/responses/Problem' }
    post:
      summary: Create a task
      security: [{ bearer: [] }]
      parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }]
      requestBody: { required: true, content: { application/json: { schema: { $ref: '#/components/schemas/TaskDraft' } } } }
      responses:
        '201': { description: Created, content: { application/json: { schema: { $ref: '#/components/schemas/Task' } } } }
        '422': { $ref: '#/components/responses/Problem' }
        default: { $ref: '#/components/responses/Problem' }
  /api/v1/tasks/{id}:
    parameters:
      - { name: id, in: path, required: true, schema: { type: string, format: uuid } }
    get:
      summary: One task
      security: [{ bearer: [] }]
      responses:
        '200': { description: The task, content: { application/json: { schema: { $ref: '#/components/schemas/Task' } } } }
        '404': { $ref: '#/components/responses/Problem' }
        default: { $ref: '#/components/responses/Problem' }
    patch:
      summary: Change a task (absent fields stay)
      security: [{ bearer: [] }]
      parameters: [{ $ref: '#/components/parameters/IfMatch' }]
      requestBody: { required: true, content: { application/json: { schema: { $ref: '#/components/schemas/TaskChange' } } } }
      responses:
        '200': { description: Changed, content: { application/json: { schema: { $ref: '#/components/schemas/Task' } } } }
        '412': { $ref: '#/components/responses/Problem' }
        '422': { $ref: '#/components/responses/Problem' }
        default: { $ref: '#/components/responses/Problem' }
    delete:
      summary: Delete a task
      security: [{ bearer: [] }]
      responses:
        '204': { description: Deleted }
        '404': { $ref: '#/components/responses/Problem' }
        default: { $ref: '#/components/responses/Problem' }
  /api/v1/tasks/{id}/complete:
    post:
      summary: Complete; a repeating task gets its next occurrence, anchored to the first due date
      security: [{ bearer: [] }]
      parameters:
        - { name: id, in: path, required: true, schema: { type: string, format: uuid } }
      responses:
        '200': { description: Completed, content: { application/json: { schema: { $ref: '#/components/schemas/Task' } } } }
        default: { $ref: '#/components/responses/Problem' }
  /api/v1/tasks/{id}/uncomplete:
    post:
      summary: Reopen; removes the next occurrence this completion created, if untouched
      security: [{ bearer: [] }]
      parameters:
        - { name: id, in: path, required: true, schema: { type: string, format: uuid } }
      responses:
        '200': { description: Reopened, content: { application/json: { schema: { $ref: '#/components/schemas/Task' } } } }
        default: { $ref: '#/components/responses/Problem' }
  /api/v1/ingest/whoami:
    get:
      summary: Who a device key (or session) belongs to, and its scope
      security: [{ deviceKey: [] }, { bearer: [] }]
      responses:
        '200':
          description: The caller
          content:
            application/json:
              schema:
                type: object
                required: [user_id, scope]
                properties:
                  user_id: { type: string, format: uuid }
                  device_id: { type: string, format: uuid }
                  scope: { type: string, enum: [ingestion, user] }
        '401': { $ref: '#/components/responses/Problem' }
        default: { $ref: '#/components/responses/Problem' }
"""#
}
