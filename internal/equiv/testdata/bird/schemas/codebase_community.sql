CREATE TABLE badges
(
    Id INTEGER
        primary key,
    UserId INTEGER,
    Name TEXT,
    Date DATETIME,
    foreign key (UserId) references users (Id)
);

CREATE TABLE comments
(
    Id INTEGER
        primary key,
    PostId INTEGER,
    Score INTEGER,
    Text TEXT,
    CreationDate DATETIME,
    UserId INTEGER,
    UserDisplayName TEXT,
    foreign key (UserId) references users (Id)
    foreign key (PostId) references posts (Id)
);

CREATE TABLE postHistory
(
    Id INTEGER
        primary key,
    PostHistoryTypeId INTEGER,
    PostId INTEGER,
    RevisionGUID TEXT,
    CreationDate DATETIME,
    UserId INTEGER,
    Text TEXT,
    Comment TEXT,
    UserDisplayName TEXT,
    foreign key (UserId) references users (Id)
    foreign key (PostId) references posts (Id)
);

CREATE TABLE postLinks
(
    Id INTEGER
        primary key,
    CreationDate DATETIME,
    PostId INTEGER,
    RelatedPostId INTEGER,
    LinkTypeId INTEGER,
    foreign key (RelatedPostId) references posts (Id)
    foreign key (PostId) references posts (Id)
);

CREATE TABLE posts
(
    Id INTEGER
        primary key,
    PostTypeId INTEGER,
    AcceptedAnswerId INTEGER,
    CreaionDate DATETIME,
    Score INTEGER,
    ViewCount INTEGER,
    Body TEXT,
    OwnerUserId INTEGER,
    LasActivityDate DATETIME,
    Title TEXT,
    Tags TEXT,
    AnswerCount INTEGER,
    CommentCount INTEGER,
    FavoriteCount INTEGER,
    LastEditorUserId INTEGER,
    LastEditDate DATETIME,
    CommunityOwnedDate DATETIME,
    ParentId INTEGER,
    ClosedDate DATETIME,
    OwnerDisplayName TEXT,
    LastEditorDisplayName TEXT,
    foreign key (ParentId) references posts (Id)
    foreign key (OwnerUserId) references users (Id)
    foreign key (LastEditorUserId) references users (Id)
);

CREATE TABLE tags
(
    Id INTEGER
        primary key,
    TagName TEXT,
    Count INTEGER,
    ExcerptPostId INTEGER,
    WikiPostId INTEGER,
    foreign key (ExcerptPostId) references posts (Id)
);

CREATE TABLE users
(
    Id INTEGER
        primary key,
    Reputation INTEGER,
    CreationDate DATETIME,
    DisplayName TEXT,
    LastAccessDate DATETIME,
    WebsiteUrl TEXT,
    Location TEXT,
    AboutMe TEXT,
    Views INTEGER,
    UpVotes INTEGER,
    DownVotes INTEGER,
    AccountId INTEGER,
    Age INTEGER,
    ProfileImageUrl TEXT
);

CREATE TABLE votes
(
    Id INTEGER
        primary key,
    PostId INTEGER,
    VoteTypeId INTEGER,
    CreationDate DATE,
    UserId INTEGER,
    BountyAmount INTEGER,
    foreign key (UserId) references users (Id)
    foreign key (PostId) references posts (Id)
);
