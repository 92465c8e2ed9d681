/// Every `idp-admin` command, in the order `idp-admin help` lists them.
enum CommandCatalog {
    static let all: [Command] = [ConfigCommands.check] + KeyCommands.all + AppCommands.all + [TestCallbackCommand.command]
        + APICommands.all + UserCommands.all + SessionCommands.all + AuditCommands.all + DatabaseCommands.all + [DatabaseCopyCommand.command]
        + DatabaseMaintenanceCommands.all
        + EmailCommands.all + ConnectionCommands.all + [DoctorCommand.doctor]
}
